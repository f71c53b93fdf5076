// money_handler.h: POST /transfers and POST /payouts of the learner's server. docs/learn/for-learners.md "For learners".
#pragma once

#include <httplib.h>

#include "common/lab.h"
#include "key_table.h"

void handle_money_request(lab::Lab& lab, const KeyTable& keys, const httplib::Request& req, httplib::Response& res,
                          lab::Endpoint endpoint);
