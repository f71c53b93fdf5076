// money_handler.h: POST /transfers and POST /payouts of stage 1. LAB.md "Stage 1: the naive server".
#pragma once

#include <httplib.h>

#include "common/lab.h"

void handle_money_request(lab::Lab& lab, const httplib::Request& req, httplib::Response& res,
                          lab::Endpoint endpoint);
