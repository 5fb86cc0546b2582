/** What a developer reads when an option is out of range: worded once, for every numeric option of the module, its stores and relays. */

/** Startup error: the numeric option `name` of `owner` is not a whole number of `unit` within `min`..`max`. */
export const numericOptionInvalid = (owner: string, name: string, unit: string, min: number, max: number, value: unknown): string =>
  `${owner}: ${name} must be a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${max}; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}.`;
