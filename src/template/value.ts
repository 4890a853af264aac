/**
 * @module template/value
 * How Go values are represented in JavaScript. This is the contract between the template
 * engine (lex/parse/exec/format), the function libraries (Sprig, injector) and the code that
 * builds template data (the injection core). Go semantics depend on static types (`int` vs
 * `int64` vs `float64`, `map[string]string` vs `map[string]interface {}`, struct vs map), so
 * the types that JSON cannot express are carried explicitly:
 *
 * | Go                                   | JavaScript                                         |
 * |--------------------------------------|----------------------------------------------------|
 * | invalid reflect.Value (missing key)  | `undefined` — prints `<no value>`                  |
 * | nil (interface, pointer, map, slice) | `null` — prints `<nil>`                            |
 * | bool / string / float64              | `boolean` / `string` / `number`                    |
 * | int                                  | `bigint` (template constants, `len`, `atoi`, ...)   |
 * | int64, int32, uint8, float32, ...    | {@link GoNumber}                                   |
 * | complex128 (constants like `1i`)     | {@link GoComplex}                                  |
 * | []interface {}                       | plain `Array`                                      |
 * | map[string]interface {}              | plain object (own enumerable string keys only)     |
 * | []string, map[string]string, ...     | Array / plain object tagged with {@link withGoType} |
 * | struct, *struct                      | {@link GoObject}                                   |
 * | func                                 | {@link GoFunc}                                     |
 *
 * Data decoded from JSON or YAML (numbers are float64, as with Go's encoding/json) needs no
 * conversion. Maps created by template functions must use {@link newGoMap} (null prototype),
 * and map lookups must use `Object.hasOwn`, so keys like `__proto__` stay plain data.
 */

/** Go's reflect type names for the untagged JSON shapes. */
export const INTERFACE = 'interface {}';
export const SLICE_OF_INTERFACE = '[]interface {}';
export const MAP_OF_INTERFACE = 'map[string]interface {}';

/** Numeric Go types other than `int` (bigint) and `float64` (number). */
export type GoNumberType = 'int8' | 'int16' | 'int32' | 'int64' | 'uint' | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'uintptr' | 'float32';

/** A Go number whose static type is not `int` or `float64`, e.g. the `int64` Sprig's `add` returns. */
export class GoNumber {
  constructor(
    readonly goType: GoNumberType,
    /** bigint for integer types, number for float32. */
    readonly value: bigint | number,
  ) {}

  get isInteger(): boolean {
    return typeof this.value === 'bigint';
  }
}

/**
 * A Go complex128. Only template constants such as `1i` or `1+2i` produce one; it prints as
 * `(0+1i)`, is true when non-zero and compares with `eq`.
 */
export class GoComplex {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}
}

const GO_TYPE: unique symbol = Symbol.for('sidecar-injector.template.goType');

/**
 * Tag an array or plain object with its Go type (e.g. `[]string`, `map[string]string`).
 * The tag is a non-enumerable symbol property: invisible to JSON.stringify and Object.keys.
 * Returns the same value for chaining.
 */
export function withGoType<T extends object>(value: T, goType: string): T {
  Object.defineProperty(value, GO_TYPE, { value: goType, enumerable: false, configurable: true, writable: true });
  return value;
}

/** The Go type tag set by {@link withGoType}, if any. */
export function taggedGoType(value: object): string | undefined {
  return (value as { [GO_TYPE]?: string })[GO_TYPE];
}

/** A new, empty `map[string]interface {}` (or tagged map) with no prototype. */
export function newGoMap(goType?: string): Record<string, unknown> {
  const map = Object.create(null) as Record<string, unknown>;
  if (goType !== undefined && goType !== MAP_OF_INTERFACE) withGoType(map, goType);
  return map;
}

/** Marker for Go structs and pointers to structs exposed to templates. */
export const GO_OBJECT: unique symbol = Symbol.for('sidecar-injector.template.goObject');

/** Returned by {@link GoObject.getField} when the type has no field of that name. */
export const NO_FIELD: unique symbol = Symbol.for('sidecar-injector.template.noField');

/**
 * A Go struct (or pointer to one) as templates see it: `.Field` lookups by Go field name,
 * methods (`.Spec.String`, `.HoldApplicationUntilProxyStarts.GetValue`), Go's `%v` printing and
 * encoding/json marshalling. Implementations may be lazy views over JSON (e.g. a Pod's
 * camelCase JSON seen through Go field names).
 */
export interface GoObject {
  readonly [GO_OBJECT]: true;
  /** Go type name as reflect prints it: `v1.PodSpec`, `*v1.Container`. */
  readonly goType: string;
  /** The field's value (zero value when unset), or NO_FIELD when the type has no such field. */
  getField(name: string): unknown;
  /** A method of that name, or undefined. Methods take no receiver argument. */
  getMethod(name: string): GoFunc | undefined;
  /** Field names in declaration order, for `%v` (`{a b}`) and `%+v` printing. */
  fieldNames(): readonly string[];
  /** What encoding/json would produce (json tags, omitempty): used by toJson/toYaml. */
  toJSON(): unknown;
  /**
   * A self-delimiting string that determines everything a template can observe of this object
   * (fields, methods, printing), or undefined; without it a render that reads the object is
   * never memoised (value-key.ts).
   */
  memoKey?(): string | undefined;
}

export function isGoObject(value: unknown): value is GoObject {
  return typeof value === 'object' && value !== null && (value as Partial<GoObject>)[GO_OBJECT] === true;
}

/**
 * Parameter and result types a function can declare. Go's exec converts and checks each
 * argument against the parameter type exactly as reflect would (e.g. a float64 from JSON
 * passed to an `int` parameter is an error: `wrong type for value; expected int; got float64`,
 * while the untyped constant `3` converts). Anything else (`[]int`, `map[string]string`,
 * `*v1.Container`) may be named too: a value is assignable when its Go type name is equal.
 */
export type GoParamType =
  | typeof INTERFACE
  | 'string'
  | 'bool'
  | 'int'
  | 'float64'
  | GoNumberType
  | typeof SLICE_OF_INTERFACE
  | typeof MAP_OF_INTERFACE
  | '[]string'
  | 'map[string]string'
  /** Receives the argument unconverted, as Go builtins taking reflect.Value do. */
  | 'reflect.Value'
  | (string & {});

/** A Go function as the template engine calls it. */
export interface GoFunc {
  /** Types of the fixed parameters. */
  readonly params: readonly GoParamType[];
  /** Element type of a final variadic `...T` parameter, if any. */
  readonly variadic?: GoParamType;
  /**
   * The implementation. Arguments arrive converted to the declared types. To return Go's
   * `(T, error)` with a non-nil error, throw a {@link GoFuncError}; the engine reports it as
   * `error calling NAME: MESSAGE`. Any other exception is treated the same way (Go recovers
   * panics in template function calls), so a function bug never crashes the process.
   */
  readonly call: (...args: never[]) => unknown;
}

/** A function's error result: becomes `error calling NAME: message`. */
export class GoFuncError extends Error {}

/** A name -> function table, as Go's template.FuncMap. */
export type FuncMap = Record<string, GoFunc>;

/** Shorthand for declaring a function: `goFunc(['string', 'int'], (s, n) => ...)`. */
export function goFunc<A extends unknown[]>(params: readonly GoParamType[], call: (...args: A) => unknown, variadic?: GoParamType): GoFunc {
  return variadic === undefined ? { params, call: call as unknown as GoFunc['call'] } : { params, variadic, call: call as unknown as GoFunc['call'] };
}

/**
 * The Go type name of a value, as `printf "%T"` and Sprig's `typeOf` print it.
 * `undefined` (invalid) has no type: `<nil>` is what Go prints for %T of an invalid value.
 */
export function goTypeName(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return '<nil>';
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'bigint':
      return 'int';
    case 'function':
      return 'func';
    case 'object': {
      if (value === null) return '<nil>';
      if (value instanceof GoNumber) return value.goType;
      if (value instanceof GoComplex) return 'complex128';
      if (isGoObject(value)) return value.goType;
      const tag = taggedGoType(value);
      if (tag !== undefined) return tag;
      if (Array.isArray(value)) return SLICE_OF_INTERFACE;
      if (isGoFuncValue(value)) return 'func';
      return MAP_OF_INTERFACE;
    }
    default:
      return INTERFACE;
  }
}

/** Whether a value is a GoFunc (a function value in template data, used by `call`). */
export function isGoFuncValue(value: unknown): value is GoFunc {
  return (
    typeof value === 'object' && value !== null && typeof (value as Partial<GoFunc>).call === 'function' && Array.isArray((value as Partial<GoFunc>).params)
  );
}

/** Go's reflect.Kind name of a value, as Sprig's `kindOf` prints it. */
export function goKindName(value: unknown): string {
  const type = goTypeName(value);
  if (type === '<nil>') return 'invalid';
  if (type.startsWith('[]')) return 'slice';
  if (type.startsWith('map[')) return 'map';
  if (type.startsWith('*')) return 'ptr';
  if (isGoObject(value)) return 'struct';
  if (type === 'func') return 'func';
  return type;
}

/** Element type of a tagged slice or map type: `[]string` -> `string`, `map[string]int` -> `int`. */
export function elementType(goType: string): string {
  if (goType.startsWith('[]')) return goType.slice(2);
  if (goType.startsWith('map[')) {
    let depth = 0;
    for (let i = 3; i < goType.length; i++) {
      if (goType[i] === '[') depth++;
      else if (goType[i] === ']' && --depth === 0) return goType.slice(i + 1);
    }
  }
  return INTERFACE;
}

/**
 * The zero value of a Go type, as `index` returns for a missing map key and structs hold in
 * unset fields. Interface types have an invalid zero (`undefined`, printed `<no value>`).
 */
export function zeroValue(goType: string): unknown {
  switch (goType) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int':
      return 0n;
    case 'float64':
      return 0;
    case 'float32':
      return new GoNumber('float32', 0);
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
    case 'uint':
    case 'uint8':
    case 'uint16':
    case 'uint32':
    case 'uint64':
    case 'uintptr':
      return new GoNumber(goType, 0n);
    case INTERFACE:
      return undefined;
    default:
      return null;
  }
}
