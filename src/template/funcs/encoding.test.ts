/**
 * @module template/funcs/encoding.test
 * b64enc/b64dec (Go's decoder errors returned as text) and checksums. Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';
import { goBase64Decode } from './encoding.js';

describe('encoding functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ b64enc "héllo" }}|{{ b64enc "" }}|{{ b64dec "aMOpbGxv" }}|{{ b64dec "" }}|{{ b64dec "YQ==\\r\\n" }}|{{ b64dec "YQ\\n==" }}|{{ b64dec "YWJj" }}',
      want: 'aMOpbGxv||héllo||a|a|abc',
    },
    {
      t: '{{ b64dec "bad!" }}|{{ b64dec "aGk=x" }}|{{ b64dec "aGk" }}|{{ b64dec "Y Q==" }}|{{ b64dec "YQ=" }}|{{ b64dec "YQ==YQ==" }}|{{ b64dec "YQ=a" }}|{{ b64dec "Y===" }}|{{ b64dec "=" }}|{{ b64dec "a===" }}|{{ b64dec "aGk==" }}',
      want: 'illegal base64 data at input byte 3|illegal base64 data at input byte 4|illegal base64 data at input byte 0|illegal base64 data at input byte 1|illegal base64 data at input byte 3|illegal base64 data at input byte 4|illegal base64 data at input byte 2|illegal base64 data at input byte 1|illegal base64 data at input byte 0|illegal base64 data at input byte 1|illegal base64 data at input byte 4',
    },
    {
      t: '{{ sha256sum "abc" }}|{{ sha256sum "" }}|{{ sha1sum "abc" }}|{{ sha1sum "日本" }}|{{ adler32sum "abc" }}|{{ adler32sum "" }}|{{ adler32sum "héllo wörld" }}',
      want: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad|e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855|a9993e364706816aba3e25717850c26c9cd0d89d|44da6bbcf285cdb317aa91174217990d1b94d64d|38600999|1|773523054',
    },
  ]);
});

test('b64dec decodes what Node encodes, with a line break anywhere (property)', () => {
  fc.assert(
    fc.property(fc.uint8Array(), fc.nat(), (bytes, at) => {
      const enc = Buffer.from(bytes).toString('base64');
      const i = enc.length === 0 ? 0 : at % enc.length;
      const withBreak = enc.slice(0, i) + '\r\n' + enc.slice(i);
      assert.deepEqual(Buffer.from(goBase64Decode(Buffer.from(withBreak))), Buffer.from(bytes));
    }),
  );
});
