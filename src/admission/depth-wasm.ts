/**
 * @module admission/depth-wasm
 * The JSON nesting-depth scan as a small WebAssembly module with 128-bit SIMD: 16 bytes per step
 * with no branch per quote or bracket, where JavaScript pays a mispredicted branch at every one
 * of them (a 44 KB Pod review has about 10,000). It is assembled here from named instructions,
 * so the source is reviewable and no build step or package is needed.
 *
 * `scan(len, max)` reads `len` bytes (at most one 64 KiB page) from offset 0 of its memory and
 * continues from the state left in the globals `depth` and `state` (bit 0: inside a string,
 * bit 1: the next byte is escaped), so a body is fed page by page. It returns 1 as soon as the
 * depth passes `max` (signed 32-bit compare), else 0. The rules are exactly the byte-at-a-time
 * scan's: outside strings `[`/`{` count up and `]`/`}` down (below zero too), a quote toggles
 * the string state, and inside a string a backslash skips the next byte.
 *
 * A 16-byte block without a backslash is classified at once: quote, opener and closer bitmasks;
 * the prefix xor of the quote mask marks the bytes inside strings; the openers and closers
 * outside them move the depth by their counts (walked in order only when the block could pass
 * `max`). A block with a backslash, a pending escape and the tail go byte by byte.
 */

const I32 = 0x7f;
const V128 = 0x7b;
const EMPTY = 0x40;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** Emits a function body; branch targets are named, and their depth is counted here. */
class Body {
  readonly code: number[] = [];
  private readonly labels: (string | undefined)[] = [];

  op(...bytes: number[]): this {
    this.code.push(...bytes);
    return this;
  }
  get(i: number): this {
    return this.op(0x20, ...uleb(i));
  }
  set(i: number): this {
    return this.op(0x21, ...uleb(i));
  }
  tee(i: number): this {
    return this.op(0x22, ...uleb(i));
  }
  i32(n: number): this {
    return this.op(0x41, ...sleb(n));
  }
  /** SIMD instructions: the 0xfd prefix and the opcode. */
  simd(opcode: number, ...imm: number[]): this {
    return this.op(0xfd, ...uleb(opcode), ...imm);
  }
  private nest(opcode: number, label: string | undefined, body: () => void): this {
    this.op(opcode, EMPTY);
    this.labels.push(label);
    body();
    this.labels.pop();
    return this.op(0x0b);
  }
  block(label: string, body: () => void): this {
    return this.nest(0x02, label, body);
  }
  loop(label: string, body: () => void): this {
    return this.nest(0x03, label, body);
  }
  if(then: () => void, otherwise?: () => void): this {
    this.op(0x04, EMPTY);
    this.labels.push(undefined);
    then();
    if (otherwise !== undefined) {
      this.op(0x05);
      otherwise();
    }
    this.labels.pop();
    return this.op(0x0b);
  }
  private depthOf(label: string): number {
    const i = this.labels.lastIndexOf(label);
    if (i === -1) throw new Error(`no label ${label}`);
    return this.labels.length - 1 - i;
  }
  br(label: string): this {
    return this.op(0x0c, ...uleb(this.depthOf(label)));
  }
  brIf(label: string): this {
    return this.op(0x0d, ...uleb(this.depthOf(label)));
  }
}

// i32 instructions
const EQZ = 0x45;
const EQ = 0x46;
const LT_U = 0x49;
const GT_S = 0x4a;
const LE_U = 0x4d;
const GE_U = 0x4f;
const CTZ = 0x68;
const POPCNT = 0x69;
const ADD = 0x6a;
const SUB = 0x6b;
const AND = 0x71;
const OR = 0x72;
const XOR = 0x73;
const SHL = 0x74;
const SHR_U = 0x76;
const SELECT = 0x1b;
const RETURN = 0x0f;
const LOAD8_U = [0x2d, 0, 0]; // align 1, offset 0
// SIMD opcodes (after the 0xfd prefix)
const V128_LOAD = 0x00;
const I8X16_SPLAT = 0x0f;
const I8X16_EQ = 0x23;
const V128_OR = 0x50;
const I8X16_BITMASK = 0x64;

// Locals: parameters first.
const LEN = 0;
const MAX = 1;
const P = 2;
const D = 3;
const S = 4;
const STOP = 5;
const BS = 6;
const Q = 7;
const O = 8;
const C = 9;
const M = 10;
const OO = 11;
const CC = 12;
const X = 13;
const CH = 14;
const I32_LOCALS = 13; // P .. CH
const V = 15;
const KQ = 16;
const KB = 17;
const K20 = 18;
const KO = 19;
const KC = 20;
const V128_LOCALS = 6; // V .. KC
const G_DEPTH = 0;
const G_STATE = 1;

function scanBody(): number[] {
  const b = new Body();
  const eqMask = (k: number) => b.get(V).get(k).simd(I8X16_EQ);
  for (const [local, byte] of [[KQ, 0x22], [KB, 0x5c], [K20, 0x20], [KO, 0x7b], [KC, 0x7d]]) b.i32(byte).simd(I8X16_SPLAT).set(local);
  b.op(0x23, G_DEPTH).set(D).op(0x23, G_STATE).set(S).i32(0).set(P);
  // Depth up by one; past max: out.
  const up = () => b.get(D).i32(1).op(ADD).tee(D).get(MAX).op(GT_S).brIf('exceeded');
  const down = () => b.get(D).i32(1).op(SUB).set(D);
  b.block('exceeded', () => {
    b.block('done', () => {
      b.loop('main', () => {
        b.get(P).get(LEN).op(GE_U).brIf('done');
        b.get(LEN).set(STOP);
        b.get(P).i32(16).op(ADD).get(LEN).op(LE_U).if(() => {
          b.get(S).i32(2).op(AND).op(EQZ).if(
            () => {
              b.get(P).simd(V128_LOAD, 0, 0).set(V);
              eqMask(KB).simd(I8X16_BITMASK).tee(BS).op(EQZ).if(() => {
                // No backslash: the whole block at once.
                eqMask(KQ).simd(I8X16_BITMASK).set(Q);
                // `[` and `{` differ in bit 5 only, and so do `]` and `}`: one compare each after setting it.
                b.get(V).get(K20).simd(V128_OR).tee(V);
                b.get(KO).simd(I8X16_EQ).simd(I8X16_BITMASK).set(O);
                b.get(V).get(KC).simd(I8X16_EQ).simd(I8X16_BITMASK).set(C);
                // m: bytes inside a string (prefix xor of the quotes), inverted if one was open.
                b.get(Q).get(Q).i32(1).op(SHL).op(XOR).set(M);
                for (const k of [2, 4, 8]) b.get(M).get(M).i32(k).op(SHL).op(XOR).set(M);
                b.get(M).i32(0).get(S).i32(1).op(AND).op(SUB).op(XOR).set(M);
                b.get(O).get(M).i32(-1).op(XOR).op(AND).set(OO);
                b.get(C).get(M).i32(-1).op(XOR).op(AND).set(CC);
                // One branch, and rarely taken: the depth plus every opener of the block passes max.
                b.get(D).get(OO).op(POPCNT).op(ADD).get(MAX).op(GT_S).if(
                  () => {
                    // This block could pass max: take its brackets in order.
                    b.get(OO).get(CC).op(OR).tee(X).if(() =>
                      b.loop('bits', () => {
                        b.get(OO).get(X).op(CTZ).op(SHR_U).i32(1).op(AND).if(up, down);
                        b.get(X).get(X).i32(1).op(SUB).op(AND).tee(X).brIf('bits');
                      }),
                    );
                  },
                  () => b.get(D).get(OO).op(POPCNT).op(ADD).get(CC).op(POPCNT).op(SUB).set(D),
                );
                b.get(S).get(Q).op(POPCNT).i32(1).op(AND).op(XOR).set(S);
                b.get(P).i32(16).op(ADD).set(P);
                b.br('main');
              });
              // A backslash: byte by byte up to the byte after it (within len).
              b.get(P).get(BS).op(CTZ).op(ADD).i32(2).op(ADD).set(STOP);
              b.get(STOP).get(LEN).get(STOP).get(LEN).op(LE_U).op(SELECT).set(STOP);
            },
            // An escaped byte is pending: that one byte alone.
            () => b.get(P).i32(1).op(ADD).set(STOP),
          );
        });
        b.loop('bytes', () => {
          b.get(P).op(...LOAD8_U).set(CH);
          b.get(P).i32(1).op(ADD).set(P);
          b.get(S).i32(2).op(AND).if(
            () => b.i32(1).set(S), // the escaped byte: skipped, still in the string
            () =>
              b.get(S).if(
                () =>
                  b.get(CH).i32(0x5c).op(EQ).if(
                    () => b.i32(3).set(S),
                    () => b.get(CH).i32(0x22).op(EQ).if(() => b.i32(0).set(S)),
                  ),
                () =>
                  b.get(CH).i32(0x22).op(EQ).if(
                    () => b.i32(1).set(S),
                    () =>
                      b.get(CH).i32(0x5b).op(EQ).get(CH).i32(0x7b).op(EQ).op(OR).if(up, () =>
                        b.get(CH).i32(0x5d).op(EQ).get(CH).i32(0x7d).op(EQ).op(OR).if(down),
                      ),
                  ),
              ),
          );
          b.get(P).get(STOP).op(LT_U).brIf('bytes');
        });
        b.br('main');
      });
    });
    b.get(D).op(0x24, G_DEPTH).get(S).op(0x24, G_STATE).i32(0).op(RETURN);
  });
  b.get(D).op(0x24, G_DEPTH).get(S).op(0x24, G_STATE).i32(1);
  return [...uleb(2), ...uleb(I32_LOCALS), I32, ...uleb(V128_LOCALS), V128, ...b.code, 0x0b];
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function name(s: string): number[] {
  return [...uleb(s.length), ...Buffer.from(s, 'ascii')];
}

/** The module's bytes. */
export function depthScanModule(): Uint8Array {
  const body = scanBody();
  const global = [I32, 0x01, 0x41, 0x00, 0x0b]; // mutable i32, initially 0
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 2, I32, I32, 1, I32]), // type: (i32, i32) -> i32
    ...section(3, [1, 0]), // one function of that type
    ...section(5, [1, 0x01, 1, 1]), // memory: exactly one page
    ...section(6, [2, ...global, ...global]), // depth, state
    ...section(7, [4, ...name('scan'), 0, 0, ...name('memory'), 2, 0, ...name('depth'), 3, G_DEPTH, ...name('state'), 3, G_STATE]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

export const PAGE = 65536;

export interface DepthScanner {
  scan(len: number, max: number): number;
  memory: { buffer: ArrayBuffer };
  depth: { value: number };
  state: { value: number };
}

/** The part of the WebAssembly API used here (@types/node 20 does not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

/** The instantiated module, or undefined where WebAssembly (or its SIMD) is not available, e.g. `node --jitless`. */
export function instantiateDepthScan(): DepthScanner | undefined {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (api === undefined) return undefined;
  try {
    return new api.Instance(new api.Module(depthScanModule()), {}).exports as DepthScanner;
  } catch {
    return undefined;
  }
}
