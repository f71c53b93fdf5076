// openapi_operations.h: which operation of openapi.yaml a request exercises. docs/teach/grader.md "The grader".
//
//   openapi_operation("POST /transfers HTTP/1.1")   -> "createTransfer"
//   openapi_operation("GET /accounts/7")            -> "getAccount"
//   openapi_operation("GET /nowhere")               -> ""
//
// A failure report names the operation, so a learner can read its exact contract (request, responses,
// problem types) in openapi.yaml. The table mirrors the operationIds there; grader_tests checks that each
// one it names exists in openapi.yaml.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace grader {

struct OpenApiOperation {
  std::string_view method;
  std::string_view path;   // "/accounts/{id}": a {name} segment matches any one segment
  std::string_view operation_id;
};

std::span<const OpenApiOperation> openapi_operations();

// The operationId for the first line of a request ("METHOD PATH[?query] [HTTP/1.1]"), or "" if none.
std::string openapi_operation(std::string_view request_line);

}  // namespace grader
