/**
 * `npm run stop`: stops the railyard that `npm start` runs from this folder (in the background or in
 * another terminal) the way Ctrl-C does, and waits until none of its processes is left. Exits 0 when
 * nothing runs any more (also when nothing ran), 1 when something could not be stopped.
 */
import { readInstance, liveChildren, stopInstance, supervisorAlive } from './lib/instance';

const say = (msg: string) => console.error(`railyard stop: ${msg}`);

async function main(): Promise<number> {
  const record = readInstance();
  if (!record || (!supervisorAlive(record) && liveChildren(record).length === 0)) {
    say('railyard is not running.');
    return 0;
  }
  await stopInstance(record, say);
  const left = liveChildren(record);
  if (supervisorAlive(record) || left.length > 0) {
    say(`could not stop: ${[record.pid, ...left.map((c) => c.pid)].join(', ')} still run.`);
    return 1;
  }
  say('stopped; nothing is left running.');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
