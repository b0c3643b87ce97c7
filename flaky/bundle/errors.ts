/**
 * Why a bundle (Trunk's `bundle.tar.zstd`) was refused. Every refusal is a {@link BundleRefusal} whose
 * message is one plain sentence naming the part of the bundle and the problem, so the API answers it
 * as is, and whose status is 413 for a size bound and 400 for everything else.
 *
 * Invariant: a refusal is raised before anything of the bundle is stored; the route stores only after
 * the whole bundle was read and accepted.
 */

export type BundleProblem =
  | { readonly kind: 'not_zstd' }
  | { readonly kind: 'corrupt_zstd'; readonly detail: string }
  | { readonly kind: 'zstd_dictionary' }
  | { readonly kind: 'window_too_large'; readonly limitBytes: number }
  | { readonly kind: 'unpacked_too_large'; readonly limitBytes: number }
  | { readonly kind: 'corrupt_tar'; readonly detail: string }
  | { readonly kind: 'unsafe_entry'; readonly name: string; readonly reason: string }
  | { readonly kind: 'duplicate_entry'; readonly name: string }
  | { readonly kind: 'too_many_entries'; readonly limit: number }
  | { readonly kind: 'entry_too_large'; readonly name: string; readonly limitBytes: number }
  | { readonly kind: 'meta_missing' }
  | { readonly kind: 'meta_malformed'; readonly detail: string }
  | { readonly kind: 'protobuf_malformed'; readonly name: string; readonly detail: string }
  | {
      readonly kind: 'report_over_budget';
      readonly name: string;
      readonly bound: 'entries' | 'nesting' | 'time';
      readonly limit: number;
    }
  | { readonly kind: 'no_results' };

export type BundleProblemKind = BundleProblem['kind'];

export class BundleRefusal extends Error {
  override readonly name = 'BundleRefusal';
  readonly kind: BundleProblemKind;
  readonly statusCode: 400 | 413;

  constructor(readonly problem: BundleProblem) {
    super(describeBundleProblem(problem));
    this.kind = problem.kind;
    this.statusCode = statusOf(problem);
  }
}

function statusOf(problem: BundleProblem): 400 | 413 {
  switch (problem.kind) {
    case 'unpacked_too_large':
    case 'entry_too_large':
      return 413;
    case 'report_over_budget':
      return problem.bound === 'nesting' ? 400 : 413;
    default:
      return 400;
  }
}

/** A name from the archive, quoted and cut so a hostile name cannot make the sentence long. */
const quoted = (name: string) => JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);

export function describeBundleProblem(problem: BundleProblem): string {
  switch (problem.kind) {
    case 'not_zstd':
      return 'The bundle is not zstd-compressed; send the bundle.tar.zstd the Trunk CLI writes.';
    case 'corrupt_zstd':
      return `The bundle's zstd data is corrupt: ${problem.detail}.`;
    case 'zstd_dictionary':
      return 'The bundle is zstd-compressed with a dictionary, which is not supported.';
    case 'window_too_large':
      return `The bundle's zstd window is larger than the limit of ${problem.limitBytes} bytes.`;
    case 'unpacked_too_large':
      return `The bundle unpacks to more than the limit of ${problem.limitBytes} bytes.`;
    case 'corrupt_tar':
      return `The bundle is not a valid tar archive: ${problem.detail}.`;
    case 'unsafe_entry':
      return `The bundle entry ${quoted(problem.name)} is refused: ${problem.reason}.`;
    case 'duplicate_entry':
      return `The bundle holds the entry ${quoted(problem.name)} more than once.`;
    case 'too_many_entries':
      return `The bundle holds more than ${problem.limit} entries, the limit for one bundle.`;
    case 'entry_too_large':
      return `The bundle entry ${quoted(problem.name)} is larger than the limit of ${problem.limitBytes} bytes.`;
    case 'meta_missing':
      return "The bundle's first entry is not meta.json; send the bundle the Trunk CLI writes.";
    case 'meta_malformed':
      return `The bundle's meta.json ${problem.detail}.`;
    case 'protobuf_malformed':
      return `The bundle entry ${quoted(problem.name)} is not a valid Trunk test report: ${problem.detail}.`;
    case 'report_over_budget':
      return overBudget(problem.name, problem.bound, problem.limit);
    case 'no_results':
      return 'The bundle holds no test results (no junit/ file, internal.bin or internal/ file).';
  }
}

function overBudget(name: string, bound: 'entries' | 'nesting' | 'time', limit: number): string {
  switch (bound) {
    case 'entries':
      return `The bundle entry ${quoted(name)} holds more than ${limit} protobuf fields (counted over the upload's reports), the limit for one upload.`;
    case 'nesting':
      return `The bundle entry ${quoted(name)} nests protobuf messages deeper than the limit of ${limit} levels.`;
    case 'time':
      return `The bundle entry ${quoted(name)} was still being decoded when the upload's limit of ${limit} ms of decoding ran out.`;
  }
}

export const refuse = (problem: BundleProblem): never => {
  throw new BundleRefusal(problem);
};
