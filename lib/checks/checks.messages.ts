/** What a developer reads when an option is out of range: worded once, for every numeric option of the module, its stores and relays. */

/** Startup error: the numeric option `name` of `owner` is not a whole number within `range`. */
export const numericOptionInvalid = (
  owner: string,
  name: string,
  range: { readonly unit: string; readonly min: number; readonly max: number; readonly unlimited?: boolean },
  value: unknown,
): string =>
  `${owner}: ${name} must be a whole number${range.unit ? ` of ${range.unit}` : ''} from ${range.min} to ${range.max}${
    range.unlimited ? ', or Infinity for no limit' : ''
  }; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}.`;
