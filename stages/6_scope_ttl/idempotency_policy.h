// idempotency_policy.h: GET /idempotency-policy, the published rules. docs/learn/stage-6-scope-ttl.md "Stage 6: scope and retention".
//
// The IETF draft asks a server to publish its idempotency policy, above all when keys expire: a client
// whose retries outlast retention would have its late retry executed as a new request.
#pragma once

#include <nlohmann/json.hpp>

#include "common/options.h"

nlohmann::json idempotency_policy(const lab::LabOptions& options);
