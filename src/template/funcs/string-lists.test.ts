/**
 * @module template/funcs/string-lists.test
 * split/splitList/splitn/join/sortAlpha/toStrings through the engine. Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data.
 */
import { describe } from 'node:test';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';

describe('string list functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ split "/" "a/b/c" }}|{{ (split "/" "a/b")._1 }}|{{ typeOf (split "/" "a") }}|{{ splitList "," "a,,b" }}|{{ splitList "," "" | len }}|{{ splitList "" "ab😀" }}|{{ typeOf (splitList "," "a") }}',
      want: 'map[_0:a _1:b _2:c]|b|map[string]string|[a  b]|1|[a b 😀]|[]string',
    },
    {
      t: '{{ splitn "/" 2 "a/b/c" }}|{{ splitn "" 2 "abc" }}|{{ splitn "," 0 "a,b" }}|{{ splitn "," -1 "a,b" }}|{{ splitn "," 9 "a,b" }}',
      want: 'map[_0:a _1:b/c]|map[_0:a _1:bc]|map[]|map[_0:a _1:b]|map[_0:a _1:b]',
    },
    {
      t: '{{ join "-" (list 1 nil "a" 2.5) }}|{{ join "," "x" }}|{{ join "," nil }}|{{ join "+" (splitList "," "a,b") }}|{{ join " " (until 3) }}',
      want: '1-a-2.5|x||a+b|0 1 2',
    },
    {
      t: '{{ sortAlpha (list "b" "a" 10 2 "B" "é" "z") }}|{{ sortAlpha "x" }}|{{ sortAlpha nil }}|{{ typeOf (sortAlpha (list)) }}',
      want: '[10 2 B a b z é]|[x]|[<nil>]|[]string',
    },
    { t: '{{ $l := splitList "," "b,a" }}{{ $_ := sortAlpha $l }}{{ $l }}', want: '[a b]' },
    { t: '{{ toStrings (list 1 nil "a" 1.5) }}|{{ typeOf (toStrings 1) }}|{{ toStrings 1 }}|{{ toStrings nil | len }}', want: '[1 a 1.5]|[]string|[1]|0' },
  ]);
});
