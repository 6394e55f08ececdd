/**
 * The whole number that text such as `1.0`, `-42.00` writes (as pandas and spreadsheets write a whole-number
 * column holding blanks: a float column), as its digits; undefined for any other text. Such text takes the
 * key or condition value of that whole number when none is the text itself (`1.0` takes `1:`), and is
 * that number's boolean (`1.0` true, `0.0` false). Other decimals
 * stay text (`1.50` is not `1.5`: a code such as a version keeps its digits).
 */
export function wholeNumberText(text: string): string | undefined {
  const m = WHOLE_FLOAT_TEXT.exec(text);
  if (m === null) return undefined;
  return m[1] === '-0' ? '0' : m[1];
}

const WHOLE_FLOAT_TEXT = /^(-?(?:0|[1-9]\d*))\.0+$/;
