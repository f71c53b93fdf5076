// target.cc: see target.h.
#include "grader/target.h"

#include <charconv>
#include <sstream>

namespace grader {

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

std::unique_ptr<Target> Target::launch(const std::string& command_template, ServerFacts facts) {
  std::unique_ptr<Target> t(new Target());
  t->command_template_ = command_template;
  t->process_ = std::make_unique<ServerProcess>(command_template);
  t->process_->start();
  t->address_ = t->process_->address();
  t->admin_token_ = t->process_->admin_token();
  t->facts_ = facts;
  return t;
}

std::unique_ptr<Target> Target::attach(Address address, std::string admin_token, ServerFacts facts) {
  std::unique_ptr<Target> t(new Target());
  t->address_ = std::move(address);
  t->admin_token_ = std::move(admin_token);
  t->facts_ = facts;
  return t;
}

std::unique_ptr<Target> Target::launch_sibling(const ServerFacts& facts) const {
  if (!process_) throw StartError("a server of its own needs --server (the grader starts it)");
  return launch(command_with_facts(command_template_, facts), facts);
}

Address Target::address() const {
  std::lock_guard lock(mutex_);
  return address_;
}

std::string Target::describe() const { return process_ ? process_->command() : "http://" + address().authority(); }

std::string Target::database_path() const { return process_ ? process_->database_path() : ""; }

std::string Target::stderr_tail() const {
  return process_ ? process_->stderr_tail() : "    (not started by the grader)\n";
}

bool Target::alive() { return !process_ || process_->alive(); }

void Target::restart_after_crash() {
  if (!process_) return;
  if (!process_->wait_for_exit(kExitWait)) process_->stop();  // it did not crash when told: end it anyway
  process_->restart();
  std::lock_guard lock(mutex_);
  address_ = process_->address();
}

void Target::sigkill() {
  if (process_) process_->kill_group();
}

void Target::stop() {
  if (process_) process_->stop();
}

}  // namespace grader
