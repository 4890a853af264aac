/**
 * @module template/funcs/json-funcs
 * Sprig's JSON functions. Their error handling differs and templates depend on it: `toJson` and
 * `toPrettyJson` print "" on a marshalling error, `toRawJson` fails the template, `fromJson`
 * yields no value on bad input, and the `must*` variants fail with encoding/json's message.
 */
import { goFunc, GoFuncError, INTERFACE, type FuncMap } from '../value.js';
import { ifaceResult } from './coerce.js';
import { goJsonUnmarshal } from './json-decode.js';
import { goJsonMarshal, JsonMarshalError, type MarshalOptions } from './json-encode.js';

/** Marshal, turning encoding/json failures into the function's error result. */
function marshalOrFail(v: unknown, opts?: MarshalOptions): string {
  try {
    return goJsonMarshal(v, opts);
  } catch (e) {
    if (e instanceof JsonMarshalError) throw new GoFuncError(e.message);
    throw e;
  }
}

/** Marshal, with "" where Go's ignored error leaves a nil byte slice. */
function marshalOrEmpty(v: unknown, opts?: MarshalOptions): string {
  try {
    return goJsonMarshal(v, opts);
  } catch (e) {
    if (e instanceof JsonMarshalError) return '';
    throw e;
  }
}

const PRETTY: MarshalOptions = { indent: '  ' };
const RAW: MarshalOptions = { escapeHTML: false };

function mustFromJson(s: string): unknown {
  const r = goJsonUnmarshal(s);
  if (r.error !== undefined) throw new GoFuncError(r.error);
  return ifaceResult(r.value);
}

export const jsonFuncs: FuncMap = {
  toJson: goFunc([INTERFACE], (v: unknown) => marshalOrEmpty(v)),
  mustToJson: goFunc([INTERFACE], (v: unknown) => marshalOrFail(v)),
  toPrettyJson: goFunc([INTERFACE], (v: unknown) => marshalOrEmpty(v, PRETTY)),
  mustToPrettyJson: goFunc([INTERFACE], (v: unknown) => marshalOrFail(v, PRETTY)),
  toRawJson: goFunc([INTERFACE], (v: unknown) => marshalOrFail(v, RAW)),
  mustToRawJson: goFunc([INTERFACE], (v: unknown) => marshalOrFail(v, RAW)),
  fromJson: goFunc(['string'], (s: string) => ifaceResult(goJsonUnmarshal(s).value ?? null)),
  mustFromJson: goFunc(['string'], mustFromJson),
};
