// What a generator does with its files (path from the repository root =>
// text): `pnpm gen` writes them; with --check (`pnpm gen:check`) it fails,
// naming them, when a committed one differs, so a stale file cannot land.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** `what` names the files in the messages: "the HTTP client". */
export function writeOrCheck(root, files, { check, what }) {
  if (!check) {
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(root, file), text);
    console.log(`generated ${Object.keys(files).join(', ')}`);
    return;
  }
  const stale = Object.entries(files).filter(([file, text]) => {
    try {
      return readFileSync(path.join(root, file), 'utf8') !== text;
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    console.error(`${what} is stale; run \`pnpm gen\` and commit:\n  ${stale.map(([file]) => file).join('\n  ')}`);
    process.exit(1);
  }
  console.log(`${what} is up to date`);
}
