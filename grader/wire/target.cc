// target.cc: see target.h.
#include "grader/wire/target.h"

#include <cctype>
#include <charconv>
#include <sstream>
#include <stdexcept>

#include "grader/base/numbers.h"

namespace grader {
namespace {

// One URL of --url: [http://]HOST:PORT[/]. Anything else (https, a path, a user) the grader could not honour.
std::optional<Address> parse_one_url(std::string url) {
  if (url.rfind("http://", 0) == 0) url.erase(0, 7);
  if (!url.empty() && url.back() == '/') url.pop_back();
  auto colon = url.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  std::string host = url.substr(0, colon);
  for (char c : host)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') return std::nullopt;
  auto port = parse_number<int>(url.substr(colon + 1), 1, 65535);
  if (!port) return std::nullopt;
  return Address{host, *port};
}

}  // namespace

ServerFacts facts_from_command(const std::string& command) {
  ServerFacts facts;
  std::istringstream words(command);
  std::string word, previous;
  while (words >> word) {
    std::int64_t value = 0;
    bool number = std::from_chars(word.data(), word.data() + word.size(), value).ec == std::errc();
    if (number && previous == "--lease") facts.lease_seconds = value;
    if (number && previous == "--key-ttl") facts.key_ttl_seconds = value;
    previous = word;
  }
  return facts;
}

std::string command_with_facts(const std::string& command, const ServerFacts& facts) {
  // Word by word, so "--lease 20" and "--lease=20" go wherever they were; the values are appended.
  std::istringstream words(command);
  std::string out, word;
  while (words >> word) {
    if (word == "--lease" || word == "--key-ttl") {
      words >> word;  // and its value
      continue;
    }
    if (word.rfind("--lease=", 0) == 0 || word.rfind("--key-ttl=", 0) == 0) continue;
    out += (out.empty() ? "" : " ") + word;
  }
  return out + " --lease " + std::to_string(facts.lease_seconds) + " --key-ttl " +
         std::to_string(facts.key_ttl_seconds);
}

std::variant<std::vector<Address>, std::string> parse_urls(const std::string& list) {
  const std::string shape = "each URL must look like http://127.0.0.1:PORT (several: comma-separated, no spaces)";
  std::vector<Address> addresses;
  std::size_t at = 0;
  for (;;) {
    auto comma = list.find(',', at);
    std::string url = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    auto address = parse_one_url(url);
    if (!address) return "--url: " + (url.empty() ? std::string("an empty URL") : "'" + url + "'") + ": " + shape;
    addresses.push_back(*address);
    if (comma == std::string::npos) return addresses;
    at = comma + 1;
  }
}

std::unique_ptr<Target> Target::launch(const std::string& command_template, ServerFacts facts,
                                       ServerLimits limits) {
  std::unique_ptr<Target> t(new Target());
  t->command_template_ = command_template;
  t->process_ = std::make_unique<ServerProcess>(command_template, limits);
  t->process_->start();
  t->addresses_ = {t->process_->address()};
  t->admin_token_ = t->process_->admin_token();
  t->facts_ = facts;
  return t;
}

std::unique_ptr<Target> Target::attach(std::vector<Address> addresses, std::string admin_token, ServerFacts facts) {
  if (addresses.empty()) throw std::invalid_argument("Target::attach needs at least one address");
  std::unique_ptr<Target> t(new Target());
  t->addresses_ = std::move(addresses);
  t->admin_token_ = std::move(admin_token);
  t->facts_ = facts;
  return t;
}

std::unique_ptr<Target> Target::launch_sibling(const ServerFacts& facts) const {
  if (!process_) throw StartError("a server of its own needs --server (the grader starts it)");
  return launch(command_with_facts(command_template_, facts), facts, process_->limits());
}

Address Target::address() const {
  std::lock_guard lock(mutex_);
  const Address& next = addresses_[next_];
  next_ = (next_ + 1) % addresses_.size();
  return next;
}

std::string Target::describe() const {
  if (process_) return process_->command();
  std::lock_guard lock(mutex_);
  std::string urls;
  for (const auto& a : addresses_) urls += (urls.empty() ? "http://" : ",http://") + a.authority();
  if (addresses_.size() == 1) return urls;
  return urls + " (" + std::to_string(addresses_.size()) + " instances, each request to the next)";
}

std::string Target::database_path() const {
  if (!process_) return "";
  // {db_name} alone names a PostgreSQL database: the file {db} would name is never made.
  const bool names_file = command_template_.find("{db}") != std::string::npos ||
                          command_template_.find("{db_name}") == std::string::npos;
  return names_file ? process_->database_path() : "";
}

std::string Target::limit_hit() const { return process_ ? process_->limit_hit() : ""; }

std::string Target::stderr_tail() const {
  return process_ ? process_->stderr_tail() : "    (not started by the grader)\n";
}

bool Target::alive() { return !process_ || process_->alive(); }

void Target::restart_after_crash() {
  if (!process_) return;
  if (!process_->wait_for_exit(kExitWait)) process_->stop();  // it did not crash when told: end it anyway
  process_->restart();
  std::lock_guard lock(mutex_);
  addresses_ = {process_->address()};
  next_ = 0;
}

void Target::sigkill() {
  if (process_) process_->kill_group();
}

void Target::stop() {
  if (process_) process_->stop();
}

}  // namespace grader
