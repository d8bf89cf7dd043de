// A tiny linter for the demo: no `var`, no trailing whitespace, no `console.log` in src/. Exit 1 on findings.
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2).filter((f) => f !== '.');
let problems = 0;
for (const file of files) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const report = (message) => {
        problems++;
        console.log(`${file}:${i + 1}: ${message}`);
      };
      if (/\bvar\s/.test(line)) report('use let or const instead of var');
      if (/[ \t]+$/.test(line)) report('trailing whitespace');
      if (file.startsWith('src/') && /console\.log/.test(line)) report('console.log in library code');
    });
}
console.log(problems ? `${problems} problem(s) in ${files.length} file(s)` : `${files.length} file(s) clean`);
process.exit(problems ? 1 : 0);
