/**
 * The heads a test-run build is told to avoid (issue 28): the queue passes the heads of the runs it
 * carries, and the host writes the branch's last commit again until its id is none of them
 * (git/fresh-head.ts). Bounded here so the build's input and its work are: the carried runs are
 * (MAX_FINISHED_RUNS finished and the live ones), and a longer list keeps its newest entries.
 */
export const MAX_AVOID_SHAS = 1_024;
