/**
 * The network of a sandboxed run (issue 17). Three kinds:
 *  - `none` (network off): bwrap's `--unshare-net`, only a loopback of its own;
 *  - `isolated` (network on, pasta available): a network namespace of its own whose traffic leaves
 *    through pasta (Debian's `passt` package) as ordinary sockets of the host, so package registries
 *    and the internet answer, while the host's loopback services (PostgreSQL, Temporal, the API) do not;
 *  - `refused` (network on, no pasta or no ip, the default then): the run does not start, its failure
 *    naming the missing tool — the threat model is that a run reaches the internet, never the control
 *    plane or a private network, and without pasta and ip nothing keeps it from them;
 *  - `host` (network on, no pasta or no ip, and the operator set RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow):
 *    the host's own network, loopback included — what the executor warns about at start.
 *
 * Why the host's loopback stays out of reach in `isolated` (each a pasta option, see PASTA_OPTIONS):
 * `-T none -U none` turn off pasta's forwarding of the namespace's own loopback ports to the host's
 * (default `auto`: every port the host listens on); `--no-map-gw` stops connections to the gateway
 * address from being mapped to the host (default on); `-t none -u none` forward nothing inward. The
 * namespace has the host's address on its interface, so connecting to it stays inside the namespace.
 *
 * Why nothing else of the neighbourhood is reached either (issue 24): the namespace carries policy-routing
 * rules (sandbox-addresses.ts) that prohibit every non-public destination — private ranges, link-local
 * and cloud metadata, this machine's subnets, the API — except the operator's allow-list and the
 * resolvers' port 53. They are set before the command starts, by a process outside the sandbox that
 * holds CAP_NET_ADMIN over the namespace; the command holds none: the namespace belongs to a user
 * namespace that is an ancestor of the command's (wrap: pasta's; helper: bwrap's, where the command
 * is an unprivileged uid under no_new_privs), and a user namespace the command nests grants capabilities
 * over its own namespaces only. Without them the run does not start (RULES_FAILED).
 *
 * Two ways to start it, the same options and result:
 *  - `wrap`: pasta, run as the user bwrap would run as, creates the namespaces and runs, as root of its
 *    user namespace, a short bash that sets the rules and then execs bwrap inside (its `--unshare-user`
 *    nests, and drops every capability). Needs /dev/net/tun open to that user (mode 0666, udev's default);
 *  - `helper`: a root worker whose /dev/net/tun is root's only (containers without udev): a short bash
 *    coordinator, as root, starts bwrap as `runAs` with `--unshare-net --info-fd`, waits until bwrap has
 *    set that namespace's loopback up, starts pasta as root joined to that network namespace only (an
 *    fd the coordinator opened), sets the rules there once pasta's route is up (nsenter), and stops
 *    pasta when bwrap exits. pasta then runs as uid 0 — inside an empty mount namespace, under its
 *    seccomp filter.
 * Either way the command waits (ROUTE_WAIT) until the namespace has a default route before it starts
 * (in `helper` pasta adds it only after the rules are set), and every process is in the run's process
 * group, so stopping the run stops pasta too.
 */
import { existsSync, statSync } from 'node:fs';
import type { AddressRules } from './sandbox-addresses';

export type NetworkKind = 'none' | 'isolated' | 'refused' | 'host';

/**
 * What a network-on run gets where this executor cannot isolate its network (no pasta, no ip, or no
 * /dev/net/tun for it): `refused`, or `host`, the executor's own network, only when the operator
 * explicitly allows it. `reason` is the probe's, naming the missing tool.
 */
export type UnisolatedNetwork = { kind: 'refused' | 'host'; reason: string };

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

/** What the run's log says when the address rules could not be set (an executor fault too). */
export const RULES_FAILED = `${NETWORK_DOWN}: its address rules could not be set`;

/**
 * Bash run in the run's network namespace, outside the sandbox, before the command: waits for pasta's
 * default route (a rule prohibiting the gateway's range, set before, would make the kernel refuse that
 * route), then sets the address rules: $1 ip, $2 IPv4 and $3 IPv6 `ip -batch` text. IPv6 rules only
 * where the kernel has IPv6 (/proc/net/ipv6_route). Exits 125 saying why when either fails.
 */
export const NET_SETUP =
  ROUTE_WAIT +
  'if ! { { [ -z "$2" ] || printf "%s\\n" "$2" | "$1" -4 -batch -; } && ' +
  '{ [ -z "$3" ] || [ ! -e /proc/net/ipv6_route ] || printf "%s\\n" "$3" | "$1" -6 -batch -; }; }; ' +
  `then echo "${RULES_FAILED}" >&2; exit 125; fi; `;

/**
 * Runs "$2"... only if the process that started it ("$1") is still its parent. `setpriv --pdeathsig`
 * arms the signal for the parent's death from then on: a parent killed before that (the executor
 * SIGKILLed while it starts a run) leaves the child reparented and never signalled, an orphan holding
 * the run's network and command. Checked after the signal is armed, a parent dead before it shows as a
 * changed parent: the run stops here instead.
 */
export const PARENT_CHECK = '[ "$PPID" = "$1" ] || exit 125; shift; exec "$@"';

/** `line` behind PARENT_CHECK, for `setpriv --pdeathsig KILL -- ...` started by `parentPid`. */
export function parentChecked(parentPid: number, line: readonly string[]): string[] {
  return [
    'bash',
    '--norc',
    '--noprofile',
    '-c',
    PARENT_CHECK,
    'railyard-parent-check',
    String(parentPid),
    ...line,
  ];
}

/** `wrap`: pasta's child, root of pasta's user namespace: the rules, then bwrap ($4...). */
const WRAP_RULES = `${NET_SETUP}shift 3; exec "$@"`;

/**
 * The command's first step inside the sandbox in `helper`: waits on the gate (fd 6, the read end of a
 * pipe only the coordinator writes) and runs "$@" only if the coordinator said `go`, closing the gate
 * first. End of file means the coordinator died before the rules were set: the run ends here (125).
 *
 * Why not bwrap's `--block-fd`: bwrap's sandboxed child reads that fd before it arms its own death
 * signal, and goes on at end of file. On a fifo the child held open itself the read never ended: a
 * coordinator killed before `go` (its executor SIGKILLed while a run started) killed the outer bwrap
 * and left the inner one blocked for good, reparented to init (crash.test.ts saw it under load).
 */
export const GATE_WAIT = 'IFS= read -r -n 2 -u 6 go; exec 6<&-; [ "$go" = go ] || exit 125; exec "$@"';

/**
 * Runs bwrap under pasta as the coordinator described in the header (`helper`). $1 pasta, $2 uid,
 * $3 gid, $4 NET_SETUP, $5 ip, $6 and $7 the rules. The command waits (GATE_WAIT) until the rules are
 * set: fd 6 is the gate's read end, which bwrap passes on; fd 4 its write end, which no child keeps.
 */
const HELPER = [
  'set -u',
  'pasta=$1 uid=$2 gid=$3 setup=$4 ip=$5 rules4=$6 rules6=$7; shift 7',
  // A fifo opened read-write first so neither end's open blocks, then closed: the gate's writer is fd 4
  // alone, and its end of file reaches the command when this coordinator dies.
  'gate=$(mktemp -d) && mkfifo "$gate/gate" && exec 8<>"$gate/gate" 6<"$gate/gate" 4>"$gate/gate" 8>&- && rm -r "$gate" || exit 125',
  'exec 5>&1',
  // bwrap writes {"child-pid": N, ...} on fd 9 once its namespaces exist; its own output goes to ours.
  'coproc BWRAP { exec 9>&1 1>&5 5>&- 4>&- </dev/null; exec setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"; }',
  'bw=$BWRAP_PID',
  'exec 5>&-',
  'if ! read -r -d "}" info <&"${BWRAP[0]}" || ! [[ $info =~ \\"child-pid\\":\\ *([0-9]+) ]]; then wait "$bw"; exit $?; fi',
  'exec 7<"/proc/${BASH_REMATCH[1]}/ns/net"',
  // bwrap writes its info before its child sets the namespace's loopback up (an address, then the link
  // up, last). pasta brings lo up too, and the kernel then gives it 127.0.0.1 itself: started before
  // bwrap is done, bwrap's own address request fails and so does the run ("bwrap: loopback: Failed
  // RTM_NEWADDR", seen under load). So pasta waits until lo is up, or bwrap is gone.
  "up='[<,]UP[,>]'",
  'until [[ $(nsenter --net=/proc/self/fd/7 -- "$ip" -o link show lo 2>/dev/null) =~ $up ]]; do',
  '  if ! kill -0 "$bw" 2>/dev/null; then wait "$bw"; exit $?; fi; sleep 0.01',
  'done',
  // pasta dies with this coordinator (which dies with the executor): no orphan keeps the namespace up.
  `setpriv --pdeathsig KILL -- bash --norc --noprofile -c '${PARENT_CHECK}' railyard-parent-check $$ "$pasta" --runas 0 ${[...PASTA_OPTIONS, ...RUN_LOG].join(' ')} --netns-only --netns /proc/self/fd/7 4>&- &`,
  'helper=$!',
  'if ! nsenter --net=/proc/self/fd/7 -- bash --norc --noprofile -c "$setup" setup "$ip" "$rules4" "$rules6" 4>&-; then',
  '  kill -KILL "$bw" "$helper" 2>/dev/null; wait "$bw" "$helper" 2>/dev/null; exit 125',
  'fi',
  'printf go >&4; exec 4>&-',
  'wait "$bw"; status=$?',
  'kill "$helper" 2>/dev/null; wait "$helper" 2>/dev/null',
  'exit "$status"',
].join('\n');

export type PastaForm = 'wrap' | 'helper';

/** Where iproute2's `ip` is (Debian: /usr/sbin, /sbin or /bin); null when it is not installed. */
export function ipCommand(): string | null {
  return ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'].find((p) => existsSync(p)) ?? null;
}

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
    /** iproute2's `ip`, absolute (ipCommand). */
    ip: string;
    /** The run's address rules (sandbox-addresses.ts). */
    rules: AddressRules;
    log?: boolean;
  },
): PastaSpawn {
  const pastaOptions = spec.log === false ? [...PASTA_OPTIONS] : [...PASTA_OPTIONS, ...RUN_LOG];
  switch (form) {
    case 'wrap':
      return {
        file: spec.pasta,
        args: [
          ...pastaOptions,
          '--',
          ...['bash', '--norc', '--noprofile', '-c', WRAP_RULES, 'railyard-sandbox-rules'],
          ...[spec.ip, spec.rules.v4, spec.rules.v6],
          spec.bwrap,
          ...spec.bwrapOptions,
          '--',
          ...spec.command,
        ],
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
          NET_SETUP,
          spec.ip,
          spec.rules.v4,
          spec.rules.v6,
          spec.bwrap,
          '--unshare-net',
          '--info-fd',
          '9',
          ...spec.bwrapOptions,
          '--',
          ...['bash', '--norc', '--noprofile', '-c', GATE_WAIT, 'railyard-gate'],
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

/** Why a run's network cannot be isolated: pasta cannot open the tun device. */
export const NO_TUN =
  "pasta cannot open /dev/net/tun as the sandbox's user (udev's default is mode 0666); the run's network cannot be isolated";

/** Why a run's network cannot be isolated: no iproute2 to set its address rules. */
export const NO_IP =
  "ip is not installed (Debian package iproute2): the run's network cannot be limited to public addresses";
