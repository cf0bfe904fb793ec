// `npm run check`: the type-check and the decorator-metadata check (one program, one
// script: check:metadata), lint, the format check, the house rules of src/
// (dependency-cruiser) and the API reports, in two lanes at once (this machine has two
// cores), about as long as each other: lint, the longest, then the house rules in one;
// the others one after another in the other. Each task's output is printed whole when it
// ends; the exit code is 1 when any task failed.
'use strict';
const { spawn } = require('node:child_process');

const LANES = [
  ['lint', 'arch', 'format:check'],
  ['check:metadata', 'api:check'],
];
const npm = process.env.npm_execpath;

function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = npm
      ? spawn(process.execPath, [npm, 'run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('npm', ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n> ${script} (${seconds} s${code === 0 ? '' : `, exit ${code}`})\n`);
      if (output.trim() !== '')
        process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
      resolve(code === 0);
    });
  });
}

async function lane(scripts) {
  let ok = true;
  for (const script of scripts) ok = (await run(script)) && ok;
  return ok;
}

Promise.all(LANES.map(lane)).then((results) => {
  process.exit(results.every(Boolean) ? 0 : 1);
});
