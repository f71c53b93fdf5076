// openapi_operations.cc: see openapi_operations.h.
#include "grader/wire/openapi_operations.h"

#include <array>

namespace grader {
namespace {

constexpr std::array kOperations = {
    OpenApiOperation{"GET", "/healthz", "getHealth"},
    OpenApiOperation{"GET", "/problems", "listProblemTypes"},
    OpenApiOperation{"GET", "/idempotency-policy", "getIdempotencyPolicy"},
    OpenApiOperation{"POST", "/admin/clients", "createClient"},
    OpenApiOperation{"POST", "/admin/accounts", "createAccount"},
    OpenApiOperation{"GET", "/admin/ledger", "listLedger"},
    OpenApiOperation{"POST", "/admin/clock", "advanceClock"},
    OpenApiOperation{"GET", "/accounts/{id}", "getAccount"},
    OpenApiOperation{"POST", "/transfers", "createTransfer"},
    OpenApiOperation{"POST", "/payouts", "createPayout"},
};

// The next '/'-separated segment of a path, consumed from the front.
std::string_view next_segment(std::string_view& path) {
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  auto end = path.find('/');
  std::string_view segment = path.substr(0, end);
  path.remove_prefix(end == std::string_view::npos ? path.size() : end);
  return segment;
}

bool path_matches(std::string_view pattern, std::string_view path) {
  while (!pattern.empty() || !path.empty()) {
    std::string_view want = next_segment(pattern);
    std::string_view got = next_segment(path);
    bool any = want.size() > 2 && want.front() == '{' && want.back() == '}';
    if (got.empty() || (!any && want != got)) return false;
  }
  return true;
}

}  // namespace

std::span<const OpenApiOperation> openapi_operations() { return kOperations; }

std::string openapi_operation(std::string_view request_line) {
  auto space = request_line.find(' ');
  if (space == std::string_view::npos) return "";
  std::string_view method = request_line.substr(0, space);
  std::string_view target = request_line.substr(space + 1);
  target = target.substr(0, target.find_first_of(" ?\r\n"));
  for (const auto& op : kOperations)
    if (op.method == method && path_matches(op.path, target)) return std::string(op.operation_id);
  return "";
}

}  // namespace grader
