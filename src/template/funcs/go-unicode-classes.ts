/**
 * @module template/funcs/go-unicode-classes
 * The names Go's regexp takes in `\p{name}`, as the Go that builds Istio's current proxy (1.26,
 * Unicode 15.0.0) looks them up: canonicalised (first letter upper, the rest lower, no `_`, `-`
 * or space; regexp/syntax canonicalName), then Any, Assigned, ASCII, LC, unicode.Categories,
 * unicode.Scripts and unicode.CategoryAliases. A script written with an inner capital or an
 * underscore (`Old_Italic`, `SignWriting`) is therefore refused by that Go, and re2js, which
 * follows an older Go, accepts it; `\p{greek}` and `\p{Letter}` the other way round. Generated from
 * Go's unicode package; src/template/funcs/go-regexp.test.ts checks every name against Go.
 */

/** Go's canonical name -> the name re2js knows for the same table. */
export const GO_UNICODE_CLASSES: ReadonlyMap<string, string> = new Map<string, string>([
  ['Any', 'Any'], ['Assigned', 'Assigned'], ['Ascii', 'Ascii'], ['Lc', 'LC'],
  ...[
    'C', 'Cc', 'Cf', 'Cn', 'Co', 'Cs', 'L', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn', 'N', 'Nd',
    'Nl', 'No', 'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm', 'So', 'Z', 'Zl', 'Zp',
    'Zs',
  ].map((c): [string, string] => [c, c]),
  ...[
    'Adlam', 'Ahom', 'Arabic', 'Armenian', 'Avestan', 'Balinese', 'Bamum', 'Batak', 'Bengali', 'Bhaiksuki',
    'Bopomofo', 'Brahmi', 'Braille', 'Buginese', 'Buhid', 'Carian', 'Chakma', 'Cham', 'Cherokee',
    'Chorasmian', 'Common', 'Coptic', 'Cuneiform', 'Cypriot', 'Cyrillic', 'Deseret', 'Devanagari', 'Dogra',
    'Duployan', 'Elbasan', 'Elymaic', 'Ethiopic', 'Georgian', 'Glagolitic', 'Gothic', 'Grantha', 'Greek',
    'Gujarati', 'Gurmukhi', 'Han', 'Hangul', 'Hanunoo', 'Hatran', 'Hebrew', 'Hiragana', 'Inherited',
    'Javanese', 'Kaithi', 'Kannada', 'Katakana', 'Kawi', 'Kharoshthi', 'Khmer', 'Khojki', 'Khudawadi', 'Lao',
    'Latin', 'Lepcha', 'Limbu', 'Lisu', 'Lycian', 'Lydian', 'Mahajani', 'Makasar', 'Malayalam', 'Mandaic',
    'Manichaean', 'Marchen', 'Medefaidrin', 'Miao', 'Modi', 'Mongolian', 'Mro', 'Multani', 'Myanmar',
    'Nabataean', 'Nandinagari', 'Newa', 'Nko', 'Nushu', 'Ogham', 'Oriya', 'Osage', 'Osmanya', 'Palmyrene',
    'Phoenician', 'Rejang', 'Runic', 'Samaritan', 'Saurashtra', 'Sharada', 'Shavian', 'Siddham', 'Sinhala',
    'Sogdian', 'Soyombo', 'Sundanese', 'Syriac', 'Tagalog', 'Tagbanwa', 'Takri', 'Tamil', 'Tangsa', 'Tangut',
    'Telugu', 'Thaana', 'Thai', 'Tibetan', 'Tifinagh', 'Tirhuta', 'Toto', 'Ugaritic', 'Vai', 'Vithkuqi',
    'Wancho', 'Yezidi', 'Yi',
  ].map((s): [string, string] => [s, s]),
  ...Object.entries({
    Casedletter: 'LC', Closepunctuation: 'Pe', Cntrl: 'Cc', Combiningmark: 'M', Connectorpunctuation: 'Pc',
    Control: 'Cc', Currencysymbol: 'Sc', Dashpunctuation: 'Pd', Decimalnumber: 'Nd', Digit: 'Nd',
    Enclosingmark: 'Me', Finalpunctuation: 'Pf', Format: 'Cf', Initialpunctuation: 'Pi', Letter: 'L',
    Letternumber: 'Nl', Lineseparator: 'Zl', Lowercaseletter: 'Ll', Mark: 'M', Mathsymbol: 'Sm',
    Modifierletter: 'Lm', Modifiersymbol: 'Sk', Nonspacingmark: 'Mn', Number: 'N', Openpunctuation: 'Ps',
    Other: 'C', Otherletter: 'Lo', Othernumber: 'No', Otherpunctuation: 'Po', Othersymbol: 'So',
    Paragraphseparator: 'Zp', Privateuse: 'Co', Punct: 'P', Punctuation: 'P', Separator: 'Z',
    Spaceseparator: 'Zs', Spacingmark: 'Mc', Surrogate: 'Cs', Symbol: 'S', Titlecaseletter: 'Lt',
    Unassigned: 'Cn', Uppercaseletter: 'Lu',
  }),
]);
