/**
 * The network of a sandboxed run (issue 17). Three kinds:
 *  - `none` (network off): bwrap's `--unshare-net`, only a loopback of its own;
 *  - `isolated` (network on, pasta available): a network namespace of its own whose traffic leaves
 *    through pasta (Debian's `passt` package) as ordinary sockets of the host, so package registries
 *    and the internet answer, while the host's loopback services (PostgreSQL, Temporal, the API) do not;
 *  - `host` (network on, no pasta): the host's own network, loopback included — what the executor warns
 *    about at start.
 *
 * Why the host's loopback stays out of reach in `isolated` (each a pasta option, see PASTA_OPTIONS):
 * `-T none -U none` turn off pasta's forwarding of the namespace's own loopback ports to the host's
 * (default `auto`: every port the host listens on); `--no-map-gw` stops connections to the gateway
 * address from being mapped to the host (default on); `-t none -u none` forward nothing inward. The
 * namespace has the host's address on its interface, so connecting to it stays inside the namespace.
 * Anything else the host itself could reach (other hosts, other interfaces' addresses, a metadata
 * service) the run reaches too: that is the operator's firewall (docs/operations.md).
 *
 * Two ways to start it, the same options and result:
 *  - `wrap`: pasta, run as the user bwrap would run as, creates the namespaces and runs bwrap inside
 *    (its `--unshare-user` nests). Needs /dev/net/tun open to that user (mode 0666, udev's default);
 *  - `helper`: a root worker whose /dev/net/tun is root's only (containers without udev): a short bash
 *    coordinator, as root, starts bwrap as `runAs` with `--unshare-net --info-fd`, then pasta as root
 *    joined to that network namespace only (an fd the coordinator opened), stops pasta when bwrap exits.
 *    pasta then runs as uid 0 — inside an empty mount namespace, under its seccomp filter.
 * Either way the command waits (ROUTE_WAIT) until the namespace has a default route before it starts,
 * and every process is in the run's process group, so stopping the run stops pasta too.
 */
import { statSync } from 'node:fs';

export type NetworkKind = 'none' | 'isolated' | 'host';

/** pasta's options for a run: see the header for why each is there. */
export const PASTA_OPTIONS = [
  '--config-net',
  '--quiet',
  '--foreground',
  '--no-map-gw',
  '--tcp-ports',
  'none',
  '--udp-ports',
  'none',
  '--tcp-ns',
  'none',
  '--udp-ns',
  'none',
] as const;

/** Where pasta writes during a run (the probe shows its messages instead); its messages otherwise
 * land in the run's log, syslog failures included where there is no /dev/log. */
const RUN_LOG = ['--log-file', '/dev/null'];

/** What the run's log says when its network never came up: an executor fault, not a verdict. */
export const NETWORK_DOWN = "railyard sandbox: the run's network (pasta) did not come up";

/**
 * Bash, inside the sandbox, before the command: wait up to 30 s (a loaded machine starts pasta slowly)
 * for an IPv4 default route, or an IPv6 one on an interface other than lo, which pasta adds once the
 * namespace is configured. Builtins and sleep only: the sandbox has no guarantee of anything else.
 */
export const ROUTE_WAIT =
  'railyard_route() { local a b c d e f g h i j; ' +
  'while read -r a b c; do [[ $b == 00000000 ]] && return 0; done </proc/net/route; ' +
  'while read -r a b c d e f g h i j; do [[ $a =~ ^0{32}$ && $b == 00 && $j != lo ]] && return 0; done </proc/net/ipv6_route; ' +
  'return 1; } 2>/dev/null; ' +
  'n=0; until railyard_route; do n=$((n + 1)); if [ "$n" -ge 600 ]; then ' +
  `echo "${NETWORK_DOWN}" >&2; exit 125; fi; sleep 0.05; done; unset -f railyard_route; `;

/** Runs bwrap under pasta as the coordinator described in the header (`helper`). $1 pasta, $2 uid, $3 gid. */
const HELPER = [
  'set -u',
  'pasta=$1 uid=$2 gid=$3; shift 3',
  'exec 5>&1',
  // bwrap writes {"child-pid": N, ...} on fd 9 once its namespaces exist; its own output goes to ours.
  'coproc BWRAP { exec 9>&1 1>&5 5>&- </dev/null; exec setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"; }',
  'bw=$BWRAP_PID',
  'exec 5>&-',
  'if ! read -r -d "}" info <&"${BWRAP[0]}" || ! [[ $info =~ \\"child-pid\\":\\ *([0-9]+) ]]; then wait "$bw"; exit $?; fi',
  // pasta dies with this coordinator (which dies with the executor): no orphan keeps the namespace up.
  `setpriv --pdeathsig KILL -- "$pasta" --runas 0 ${[...PASTA_OPTIONS, ...RUN_LOG].join(' ')} --netns-only --netns /proc/self/fd/7 7<"/proc/\${BASH_REMATCH[1]}/ns/net" &`,
  'helper=$!',
  'wait "$bw"; status=$?',
  'kill "$helper" 2>/dev/null; wait "$helper" 2>/dev/null',
  'exit "$status"',
].join('\n');

export type PastaForm = 'wrap' | 'helper';

/** `wrap` when the user that would run pasta can open /dev/net/tun, else `helper` (root only). */
export function pastaForm(root: boolean, runAs: { uid: number; gid: number }): PastaForm | null {
  const uid = root ? runAs.uid : (process.getuid?.() ?? 0);
  const gid = root ? runAs.gid : (process.getgid?.() ?? 0);
  const tun = statSync('/dev/net/tun', { throwIfNoEntry: false });
  if (!tun) return null;
  const bits = tun.uid === uid ? 0o600 : tun.gid === gid ? 0o060 : 0o006;
  if ((tun.mode & bits) === bits) return 'wrap';
  return root ? 'helper' : null;
}

export interface PastaSpawn {
  file: string;
  args: string[];
  ids?: { uid: number; gid: number };
}

/**
 * The spawn that runs bwrap (`bwrapOptions`, then `--`, then `command`) in an isolated network.
 * `log: false` keeps pasta's messages on stderr (the probe).
 */
export function pastaSpawn(
  form: PastaForm,
  spec: {
    pasta: string;
    bwrap: string;
    bwrapOptions: readonly string[];
    command: readonly string[];
    runAs: { uid: number; gid: number };
    root: boolean;
    log?: boolean;
  },
): PastaSpawn {
  const pastaOptions = spec.log === false ? [...PASTA_OPTIONS] : [...PASTA_OPTIONS, ...RUN_LOG];
  switch (form) {
    case 'wrap':
      return {
        file: spec.pasta,
        args: [...pastaOptions, '--', spec.bwrap, ...spec.bwrapOptions, '--', ...spec.command],
        ...(spec.root ? { ids: spec.runAs } : {}),
      };
    case 'helper': {
      const script = spec.log === false ? HELPER.replace(` ${RUN_LOG.join(' ')}`, '') : HELPER;
      return {
        file: 'bash',
        // No rc files: bash reads ~/.bashrc even with -c when its input is a socket (libuv's pipes).
        args: [
          '--norc',
          '--noprofile',
          '-c',
          script,
          'railyard-sandbox-network',
          spec.pasta,
          String(spec.runAs.uid),
          String(spec.runAs.gid),
          spec.bwrap,
          '--unshare-net',
          '--info-fd',
          '9',
          ...spec.bwrapOptions,
          '--',
          ...spec.command,
        ],
      };
    }
    default: {
      const never: never = form;
      throw new Error(`unknown pasta form ${String(never)}`);
    }
  }
}
