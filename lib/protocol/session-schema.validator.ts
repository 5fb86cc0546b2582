import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';

/**
 * The JSON Schema validator of one connection's SDK server, which checks a client's answer to
 * an elicitation against its requested schema: the SDK's own (Ajv, with formats), made the
 * first time an answer is checked. The SDK's server makes one when it is created, and an Ajv
 * instance costs about as much CPU as the rest of opening a session, and heap as long as it
 * lives; most connections never elicit. One per connection, as the SDK's, so the schemas it
 * compiles go with the connection.
 */
export class SessionSchemaValidator implements jsonSchemaValidator {
  private ajv?: AjvJsonSchemaValidator;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.ajv ??= new AjvJsonSchemaValidator();
    return this.ajv.getValidator<T>(schema);
  }
}
