/**
 * @module template/funcs/reflect
 * Type inspection: `typeOf` prints Go's `%T` (`float64` for JSON numbers, `int` for template
 * constants, `[]interface {}`, `map[string]interface {}`), `kindOf` the reflect.Kind.
 */
import { goFunc, goKindName, goTypeName, INTERFACE, type FuncMap } from '../value.js';
import { goDeepEqual } from './coerce.js';

const typeOf = (v: unknown): string => goTypeName(v === undefined ? null : v);
const kindOf = (v: unknown): string => goKindName(v === undefined ? null : v);

export const reflectFuncs: FuncMap = {
  typeOf: goFunc([INTERFACE], typeOf),
  typeIs: goFunc(['string', INTERFACE], (target: string, v: unknown) => target === typeOf(v)),
  typeIsLike: goFunc(['string', INTERFACE], (target: string, v: unknown) => {
    const t = typeOf(v);
    return t === target || t === '*' + target;
  }),
  kindOf: goFunc([INTERFACE], kindOf),
  kindIs: goFunc(['string', INTERFACE], (target: string, v: unknown) => target === kindOf(v)),
  deepEqual: goFunc([INTERFACE, INTERFACE], goDeepEqual),
};
