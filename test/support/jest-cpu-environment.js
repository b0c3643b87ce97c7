/**
 * jest's Node environment, plus what each test file cost in CPU: this worker's own CPU (loading the
 * file's modules, its tests, the Temporal worker it may run in-process, its teardown) and that of the
 * processes it started and reaped meanwhile (API and worker processes, executors' commands, git). One
 * JSON line per file goes to `$TEST_TMP/cpu-by-file.jsonl`, which jest-slowest-reporter.js sums up.
 *
 * Why: the run is bound by the two cores' CPU, not by waiting (README, issue 23), so the files that
 * cost the most CPU are the ones worth making cheaper, and they are not the slowest by wall time (a
 * crash story waits out timeouts). The shared servers (Temporal, PostgreSQL) are not charged to a file.
 */
const fs = require('node:fs');
const path = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

/** CPU-seconds of this process's reaped children (utime + stime of /proc/self/stat's cutime, cstime). */
function childrenCpuSeconds() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5), counted from 1, are the 14th and 15th after the command name.
    // Counted in clock ticks of USER_HZ, which is 100 on Linux.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0; // not Linux: no children's figure
  }
}

class CpuAccountingEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.rootDir = config.projectConfig.rootDir;
  }

  async setup() {
    this.startCpu = process.cpuUsage();
    this.startChildren = childrenCpuSeconds();
    await super.setup();
  }

  async teardown() {
    await super.teardown();
    const dir = process.env.TEST_TMP;
    if (!dir || this.startCpu === undefined) return;
    const used = process.cpuUsage(this.startCpu);
    const line = {
      file: path.relative(this.rootDir, this.testPath).split(path.sep).join('/'),
      self: (used.user + used.system) / 1e6,
      children: childrenCpuSeconds() - this.startChildren,
    };
    try {
      fs.appendFileSync(path.join(dir, 'cpu-by-file.jsonl'), `${JSON.stringify(line)}\n`);
    } catch {
      /* the run's temp dir is gone: nothing to report to */
    }
  }
}

module.exports = CpuAccountingEnvironment;
