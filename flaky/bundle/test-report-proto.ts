/**
 * The protobuf test report Trunk's language plugins (rspec and others) and newer CLIs write into a
 * bundle as `internal.bin` or `internal/N`: `TestReport` of the published schema
 * trunk-io/analytics-cli `proto/proto/test_context.proto`, written here from its field numbers and
 * types (decoding needs nothing else). It lives in a TypeScript string rather than a .proto file
 * because the build ships only compiled JavaScript (dist/).
 *
 * `Timestamp` stands in for `google.protobuf.Timestamp`: the same two fields with the same numbers
 * and types, so the wire format is the same. Fields railyard does not read (Bazel details) are left
 * out; the decoder skips unknown fields.
 */
export const TEST_REPORT_PROTO = `
syntax = "proto3";
package test_context.test_run;

message Timestamp {
  int64 seconds = 1;
  int32 nanos = 2;
}

enum TestCaseRunStatus {
  TEST_CASE_RUN_STATUS_UNSPECIFIED = 0;
  TEST_CASE_RUN_STATUS_SUCCESS = 1;
  TEST_CASE_RUN_STATUS_FAILURE = 2;
  TEST_CASE_RUN_STATUS_SKIPPED = 3;
}

message CodeOwner { string name = 1; }
message AttemptNumber { int32 number = 1; }
message LineNumber { int32 number = 1; }

message TestOutput {
  string text = 1;
  string message = 2;
  string system_out = 3;
  string system_err = 4;
}

message TestCaseRun {
  string id = 1;
  string name = 2;
  string classname = 3;
  string file = 4;
  string parent_name = 5;
  int32 line = 6;
  TestCaseRunStatus status = 7;
  int32 attempt_number = 8;
  Timestamp started_at = 9;
  Timestamp finished_at = 10;
  string status_output_message = 11;
  bool is_quarantined = 12;
  repeated CodeOwner codeowners = 13;
  optional AttemptNumber attempt_index = 14;
  optional LineNumber line_number = 15;
  optional TestOutput test_output = 16;
}

message UploaderMetadata {
  string version = 1;
  string origin = 2;
  Timestamp upload_time = 3;
  string variant = 4;
}

message TestResult {
  repeated TestCaseRun test_case_runs = 1;
  UploaderMetadata uploader_metadata = 2;
}

message TestReport {
  repeated TestResult test_results = 1;
  UploaderMetadata uploader_metadata = 2;
}
`;
