import { userInfo } from 'node:os';
import { decodeOperator, encodeOperator, operatorOfCommandLine, operatorProblem } from './operator';

it('accepts one line of up to 128 characters, and refuses what would not read as a name in a table', () => {
  expect(operatorProblem('ada@example.com')).toBeUndefined();
  expect(operatorProblem('x'.repeat(128))).toBeUndefined();
  expect(operatorProblem('x'.repeat(129))).toMatch(/at most 128/);
  expect(operatorProblem('  ')).toMatch(/person/);
  expect(operatorProblem('ada\nroot')).toMatch(/one line/);
  expect(operatorProblem('ada\u001b[2J')).toMatch(/one line/);
});

it('survives percent-encoding, and keeps a value that is not percent-encoded as it came', () => {
  expect(decodeOperator(encodeOperator('Zoë 100%'))).toBe('Zoë 100%');
  expect(decodeOperator('ada@example.com')).toBe('ada@example.com');
  expect(decodeOperator('50%off')).toBe('50%off');
});

it('takes --operator over the OS user, and refuses a flag that names no one', () => {
  expect(operatorOfCommandLine(' ada ')).toBe('ada');
  expect(operatorOfCommandLine(undefined)).toBe(userInfo().username);
  expect(() => operatorOfCommandLine('')).toThrow(/--operator must name/);
});
