import { parseWebSearch } from './web-search-query';

const word = (text: string, excluded = false) => ({ text, phrase: false, excluded });
const phrase = (text: string, excluded = false) => ({ text, phrase: true, excluded });

describe('parseWebSearch()', () => {
  it('requires every word', () => {
    expect(parseWebSearch('quick brown  fox')).toEqual([[word('quick')], [word('brown')], [word('fox')]]);
  });

  it('reads phrases, exclusions and excluded phrases', () => {
    expect(parseWebSearch('"brown fox" -lazy -"old dog"')).toEqual([[phrase('brown fox')], [word('lazy', true)], [phrase('old dog', true)]]);
  });

  it('binds or tighter than the implied and, in any case', () => {
    expect(parseWebSearch('a b or c OR "d e" f')).toEqual([[word('a')], [word('b'), word('c'), phrase('d e')], [word('f')]]);
  });

  it('ignores an or with no term on one side, terms without a letter or digit, and reads an unclosed quote to the end', () => {
    expect(parseWebSearch('or a or')).toEqual([[word('a')]]);
    expect(parseWebSearch('"open phrase')).toEqual([[phrase('open phrase')]]);
    expect(parseWebSearch('- "" -- a')).toEqual([[word('a')]]);
  });
});
