/**
 * @module template/printer
 * The value-walking half of Go's fmt (print.go): one operand printed with a verb, descending
 * into maps (sorted keys), slices and structs with the verb applied to every element, Go's
 * String()/Error() methods, and the in-band mistakes (`%!d(string=x)`). Printf's format
 * parsing is printf.ts; the public functions are format.ts.
 */

import { FmtState, INT_BITS, LDIGITS, UNSIGNED, clearFlags } from './fmt-state.js';
import { sortStrings } from './quote.js';
import { GoComplex, GoNumber, elementType, goTypeName, isGoFuncValue, isGoObject, taggedGoType, INTERFACE, type GoObject, type GoNumberType } from './value.js';

/**
 * Marks a typed nil slice or map (funcs/nil.ts makes them: empty, frozen, this global symbol
 * set): it prints like an empty one except under %#v, where Go shows `[]interface {}(nil)`.
 */
const GO_NIL: unique symbol = Symbol.for('sidecar-injector.template.goNil') as never;

function isNilContainer(v: object): boolean {
  return (v as { [GO_NIL]?: boolean })[GO_NIL] === true;
}

/** Fake address printed for %p of maps, slices and functions (Go prints a real pointer). */
const FAKE_POINTER = 0xc000010000n;

/** Go's `pp`: one formatting run. */
export class Printer extends FmtState {
  /** Print a top-level struct pointer as the struct (what text/template's printValue does). */
  derefTop = false;

  // ---- errors -----------------------------------------------------------------------------

  /** `%!verb(type=value)`; the value printed with %v and the current flags, as Go does. */
  override badVerb(verb: string, value: unknown): void {
    this.erroring = true;
    this.buf += '%!' + verb + '(';
    if (value === null || value === undefined) {
      this.buf += '<nil>';
    } else {
      this.buf += goTypeName(value) + '=';
      this.printValue(value, 'v', 0);
    }
    this.buf += ')';
    this.erroring = false;
  }

  // ---- values -----------------------------------------------------------------------------

  /** Go's printArg: a top-level operand. */
  printArg(arg: unknown, verb: string): void {
    if (arg === null || arg === undefined) {
      if (verb === 'T' || verb === 'v') this.pad('<nil>');
      else this.badVerb(verb, arg);
      return;
    }
    if (verb === 'T') {
      this.fmtS(goTypeName(arg));
      return;
    }
    if (verb === 'p') {
      this.fmtPointer(arg, verb);
      return;
    }
    this.printValue(arg, verb, 0);
  }

  private fmtPointer(value: unknown, verb: string): void {
    let u: bigint;
    if (
      Array.isArray(value) ||
      isGoFuncValue(value) ||
      (typeof value === 'object' && value !== null && !(value instanceof GoNumber) && (!isGoObject(value) || value.goType.startsWith('*')))
    ) {
      u = FAKE_POINTER;
    } else {
      this.badVerb(verb, value);
      return;
    }
    switch (verb) {
      case 'v':
        if (this.f.sharpV) {
          this.buf += '(' + goTypeName(value) + ')(';
          this.fmt0x64(u, true);
          this.buf += ')';
        } else {
          this.fmt0x64(u, !this.f.sharp);
        }
        return;
      case 'p':
        this.fmt0x64(u, !this.f.sharp);
        return;
      case 'b':
      case 'o':
      case 'd':
      case 'x':
      case 'X':
        this.fmtInteger(u, false, verb, value);
        return;
      default:
        this.badVerb(verb, value);
    }
  }

  private fmt0x64(u: bigint, leading0x: boolean): void {
    const sharp = this.f.sharp;
    this.f.sharp = leading0x;
    this.fmtIntegerBase(u, 16, false, 'v', LDIGITS);
    this.f.sharp = sharp;
  }

  /** Stringer/error support for Go structs: `String()` or `Error()` methods. */
  private handleMethods(value: GoObject, verb: string): boolean {
    if (this.erroring || this.f.sharpV) return false;
    if (verb !== 'v' && verb !== 's' && verb !== 'x' && verb !== 'X' && verb !== 'q') return false;
    for (const name of ['Error', 'String']) {
      const method = value.getMethod(name);
      if (method === undefined || method.params.length !== 0 || method.variadic !== undefined) continue;
      let s: unknown;
      try {
        s = (method.call as () => unknown)();
      } catch (err) {
        const saved = { ...this.f };
        clearFlags(this.f);
        this.buf += '%!' + verb + '(PANIC=' + name + ' method: ' + (err instanceof Error ? err.message : String(err)) + ')';
        this.f = saved;
        return true;
      }
      this.fmtString(typeof s === 'string' ? s : formatOne(s), verb, value);
      return true;
    }
    return false;
  }

  /** Go's printValue: `depth` > 0 inside maps, slices and structs. */
  printValue(value: unknown, verb: string, depth: number, elemType = INTERFACE): void {
    switch (typeof value) {
      case 'string':
        this.fmtString(value, verb, value);
        return;
      case 'number':
        this.fmtFloat(value, 64, verb, value);
        return;
      case 'bigint':
        this.fmtInteger(BigInt.asIntN(64, value), true, verb, value);
        return;
      case 'boolean':
        this.fmtBool(value, verb);
        return;
      case 'undefined':
        this.printNil(verb, depth, elemType);
        return;
      case 'object':
        break;
      default:
        // A JavaScript function or symbol is outside the value model (a bug in whatever
        // produced it); print a placeholder rather than recurse through badVerb.
        this.buf += `%!${verb}(${typeof value})`;
        return;
    }
    if (value === null) {
      this.printNil(verb, depth, elemType);
      return;
    }
    if (verb === 'w' && !(value instanceof GoNumber) && !(value instanceof GoComplex)) {
      // Go's handleMethods rejects %w (valid only in Errorf) before looking inside.
      this.badVerb(verb, value);
      return;
    }
    if (value instanceof GoNumber) {
      this.printGoNumber(value, verb);
      return;
    }
    if (value instanceof GoComplex) {
      this.fmtComplex(value, verb);
      return;
    }
    if (isGoObject(value)) {
      this.printStruct(value, verb, depth);
      return;
    }
    if (isGoFuncValue(value)) {
      this.fmtPointer(value, verb);
      return;
    }
    if (Array.isArray(value)) {
      this.printSlice(value, verb, depth);
      return;
    }
    this.printMap(value as Record<string, unknown>, verb, depth);
  }

  /** A nil interface (or typed nil of `elemType`) inside a container, or a top-level nil. */
  private printNil(verb: string, depth: number, elemType: string): void {
    if (depth === 0) {
      this.printArg(null, verb);
      return;
    }
    const sharpV = this.f.sharpV;
    if (elemType.startsWith('map[')) {
      this.buf += sharpV ? elemType + '(nil)' : 'map[]';
    } else if (elemType.startsWith('[]')) {
      this.buf += sharpV ? elemType + '(nil)' : '[]';
    } else if (elemType.startsWith('*') || elemType.startsWith('func')) {
      if (sharpV) this.buf += '(' + elemType + ')(nil)';
      else if (verb === 'v') this.pad('<nil>');
      else this.badVerb(verb, null);
    } else {
      this.buf += sharpV ? elemType + '(nil)' : '<nil>';
    }
  }

  private printGoNumber(n: GoNumber, verb: string): void {
    if (typeof n.value === 'number') {
      this.fmtFloat(n.value, n.goType === 'float32' ? 32 : 64, verb, n);
      return;
    }
    const bits = INT_BITS[n.goType as GoNumberType] ?? 64;
    if (UNSIGNED.has(n.goType)) this.fmtInteger(BigInt.asUintN(bits, n.value), false, verb, n);
    else this.fmtInteger(BigInt.asIntN(bits, n.value), true, verb, n);
  }

  private printStruct(value: GoObject, verb: string, depth: number): void {
    if (this.handleMethods(value, verb)) return;
    const f = this.f;
    const pointer = value.goType.startsWith('*');
    if (pointer && !(depth === 0 && this.derefTop)) this.buf += '&';
    if (f.sharpV) this.buf += pointer ? value.goType.slice(1) : value.goType;
    this.buf += '{';
    const names = value.fieldNames();
    for (let i = 0; i < names.length; i++) {
      if (i > 0) this.buf += f.sharpV ? ', ' : ' ';
      if (f.plusV || f.sharpV) this.buf += names[i] + ':';
      const field = value.getField(names[i]);
      this.printValue(field, verb, depth + 1, field === null || field === undefined ? INTERFACE : goTypeName(field));
    }
    this.buf += '}';
  }

  private printSlice(value: unknown[], verb: string, depth: number): void {
    const f = this.f;
    const type = taggedGoType(value) ?? '[]interface {}';
    const elem = elementType(type);
    if (f.sharpV) {
      if (isNilContainer(value)) {
        this.buf += type + '(nil)';
        return;
      }
      this.buf += type + '{';
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.buf += ', ';
        this.printValue(value[i], verb, depth + 1, elem);
      }
      this.buf += '}';
      return;
    }
    this.buf += '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) this.buf += ' ';
      this.printValue(value[i], verb, depth + 1, elem);
    }
    this.buf += ']';
  }

  private printMap(value: Record<string, unknown>, verb: string, depth: number): void {
    const f = this.f;
    const type = taggedGoType(value) ?? 'map[string]interface {}';
    const elem = elementType(type);
    if (f.sharpV && isNilContainer(value)) {
      this.buf += type + '(nil)';
      return;
    }
    this.buf += f.sharpV ? type + '{' : 'map[';
    const keys = sortStrings(Object.keys(value));
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) this.buf += f.sharpV ? ', ' : ' ';
      this.printValue(keys[i], verb, depth + 1, 'string');
      this.buf += ':';
      this.printValue(value[keys[i]], verb, depth + 1, elem);
    }
    this.buf += f.sharpV ? '}' : ']';
  }
}

/** %v of one value with a fresh printer (for String methods returning non-strings). */
function formatOne(v: unknown): string {
  const p = new Printer();
  p.printArg(v, 'v');
  return p.buf;
}
