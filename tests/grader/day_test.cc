// day_test.cc: the pure parts of `grader day`: the log format (grader/day/day_log.cc), the generator
// (grader/day/day_generate.cc), the body a send carries (grader/day/day_replay.cc: day_body) and the audit
// (grader/day/day_audit.cc), on made-up days and made-up replays. The replays against real servers are the
// "grader day: ..." end-to-end tests in grader/CMakeLists.txt.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "grader/day/day_audit.h"
#include "grader/day/day_generate.h"
#include "grader/day/day_log.h"
#include "grader/day/day_replay.h"

using namespace grader;
using Catch::Matchers::Contains;

namespace {

// --- day_log helpers ---

DayLog parse(const std::string& text) {
  std::istringstream in(text);
  return parse_day_log(in, "t.jsonl");
}

// The parser's complaint about a log, or "(accepted)".
std::string refusal(const std::string& text) {
  try {
    parse(text);
  } catch (const DayLogError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string written(const DayLog& day) {
  std::ostringstream out;
  write_day_log(out, day);
  return out.str();
}

// Six lines: a bank of two clients. An intent added after it is on line 7.
const std::string kBank =
    "{\"day\":\"2026-03-02\"}\n"
    "{\"client\":\"ann\"}\n"
    "{\"client\":\"bob\"}\n"
    "{\"account\":\"ann-1\",\"client\":\"ann\",\"balance\":100000,\"currency\":\"KRW\"}\n"
    "{\"account\":\"ann-2\",\"client\":\"ann\",\"balance\":0,\"currency\":\"KRW\"}\n"
    "{\"account\":\"bob-1\",\"client\":\"bob\",\"balance\":50000,\"currency\":\"KRW\"}\n";

// The bank and one transfer from ann-1 to bob-1 with these sends (a JSON array's members).
std::string day_with_sends(const std::string& sends) {
  return kBank +
         "{\"intent\":\"i1\",\"client\":\"ann\",\"transfer\":{\"from\":\"ann-1\",\"to\":\"bob-1\",\"amount\":1000},"
         "\"key\":\"k1\",\"sends\":[" + sends + "]}\n";
}

// Every member of a send, so that two sends compare in one CHECK and a difference is readable.
std::string fields(const DaySend& s) {
  auto opt = [](const auto& v) { return v ? std::to_string(*v) : std::string("-"); };
  std::ostringstream out;
  out << "at=" << opt(s.at_ms) << " after=" << opt(s.after_ms) << " during=" << opt(s.during_ms)
      << " next_day=" << s.next_day << " key=" << s.key.value_or("-") << " amount=" << opt(s.amount)
      << " as=" << s.as_client.value_or("-") << " reordered=" << s.reordered << " delay=" << s.delay_ms
      << " timeout=" << opt(s.timeout_ms) << " drop=" << s.drop << " crash=" << s.crash << " clock=" << s.clock_ms;
  return out.str();
}

std::string fields(const DayIntent& i) {
  std::ostringstream out;
  out << i.id << " client=" << i.client << " kind=" << i.kind << " from=" << i.from << " to=" << i.to
      << " destination=" << i.destination << " amount=" << i.amount << " currency=" << i.currency
      << " memo=" << i.memo << " story=" << i.story << " key=" << i.key << " body_of=" << i.body_of;
  for (const auto& s : i.sends) out << "\n  " << fields(s);
  return out.str();
}

// --- audit helpers: a day and its replay, made by hand ---

constexpr std::int64_t kOpening = 100'000;
constexpr std::int64_t kNextDayMs = 1'000'000;  // lab clock: where MadeUpDay's next day begins

struct MadeUpDay {
  DayLog day;
  DayReplay replay;

  MadeUpDay() {
    day.clients = {"ann", "bob"};
    day.accounts = {{"ann-1", "ann", kOpening, "KRW"}, {"bob-1", "bob", kOpening, "KRW"}};
    day.intents.reserve(16);  // intent() hands out references into it
    replay.nonce = "r1";
    replay.account_id = {{"ann-1", 1}, {"bob-1", 2}};
    replay.client_token = {{"ann", "token-ann"}, {"bob", "token-bob"}};
    replay.balances = {{1, kOpening}, {2, kOpening}};
  }

  // A transfer of `client`'s, from its account to the other client's, sent `sends` times (10 ms apart).
  DayIntent& intent(const std::string& client, std::int64_t amount = 1'000, int sends = 1) {
    DayIntent i;
    i.id = "i" + std::to_string(day.intents.size() + 1);
    i.client = client;
    i.kind = "transfer";
    i.from = client + "-1";
    i.to = client == "ann" ? "bob-1" : "ann-1";
    i.amount = amount;
    i.currency = "KRW";
    i.memo = "rent";
    i.story = "plain";
    i.key = "k-" + i.id;
    for (int k = 0; k < sends; ++k) {
      DaySend s;
      if (k == 0) s.at_ms = kDayOpensMs;
      else s.after_ms = 10;
      i.sends.push_back(s);
    }
    day.intents.push_back(i);
    return day.intents.back();
  }

  // What send k of the intent was, and the answer it got (no status: the client never heard back).
  SentAttempt& answered(const DayIntent& i, std::size_t k, std::optional<int> status, const std::string& body = "") {
    const DaySend& send = i.sends.at(k);
    SentAttempt a;
    a.intent = static_cast<std::size_t>(&i - day.intents.data());
    a.send = k;
    a.key = replay.nonce + "-" + send.key.value_or(i.key);
    a.amount = send.amount.value_or(i.amount);
    a.client = send.as_client.value_or(i.client);
    a.body = day_body(day, i, replay, a.amount, send.reordered);
    a.status = status;
    if (status) a.content_type = "application/json";
    a.response_body = body;
    replay.attempts.push_back(a);
    return replay.attempts.back();
  }

  // The server moved money for the intent (its memo carries the intent's tag), and the balances follow.
  const LedgerEntry& moved(const DayIntent& i, std::optional<std::int64_t> amount = {}, std::int64_t created_at = 0) {
    LedgerEntry e;
    e.id = static_cast<std::int64_t>(replay.ledger.size()) + 1;
    e.kind = i.kind;
    e.from_account = replay.account_id.at(i.from);
    if (i.kind == "transfer") e.to_account = replay.account_id.at(i.to);
    else e.destination = i.destination;
    e.amount = amount.value_or(i.amount);
    e.currency = i.currency;
    e.memo = i.memo + " " + replay.tag(i);
    e.created_at = created_at;
    return record(e);
  }

  const LedgerEntry& record(const LedgerEntry& e) {
    replay.ledger.push_back(e);
    if (replay.balances.count(e.from_account)) replay.balances[e.from_account] -= e.amount;
    if (e.to_account && replay.balances.count(*e.to_account)) replay.balances[*e.to_account] += e.amount;
    return replay.ledger.back();
  }

  // The body a server answers a created transfer with: what the client reads the entry's id from.
  static std::string created(const LedgerEntry& e) {
    return nlohmann::json{{"id", e.id}, {"amount", e.amount}, {"memo", e.memo}}.dump();
  }

  // Ann's intent sent today and again the next day (past the key's retention), each send answered 201 with an
  // entry of its own: what a key that expired as the published policy says does. The next day's lab clock
  // starts at kNextDayMs.
  DayIntent& sent_today_and_next_day() {
    replay.next_day_from_ms = kNextDayMs;
    DayIntent& i = intent("ann", 1'000, 2);
    i.sends[1] = DaySend{};
    i.sends[1].next_day = true, i.sends[1].at_ms = kDayOpensMs;
    answered(i, 0, 201, created(moved(i, {}, 10)));
    answered(i, 1, 201, created(moved(i, {}, kNextDayMs)));  // another entry: another body, another day
    return i;
  }

  DayDamage audit() const { return audit_day(day, replay); }
};

// The nonzero counts by column name ("dup=1 lost=1"), or "none": a failing CHECK shows every count.
std::string summary(const DayDamage& d) {
  std::string out;
  for (Damage kind : kAllDamage) {
    if (d.count(kind) == 0) continue;
    // Appended piece by piece: `"literal" + std::string` here made GCC 12 at -O3 warn -Wrestrict (a false positive).
    if (!out.empty()) out += ' ';
    out += column_name(kind);
    out += '=';
    out += std::to_string(d.count(kind));
  }
  return out.empty() ? "none" : out;
}

const std::string kInProgress =
    R"({"type":"https://lab.example/problems/request-in-progress","title":"still running","status":409})";

// The committed default day's shape: generated once, shared by the generator's tests.
const DayLog& big_day() {
  static const DayLog day = generate_day({.seed = 1, .intents = 20'000});
  return day;
}

}  // namespace

// ===================================== day_log: the file format =====================================

TEST_CASE("day log: a day log skips comment lines and blank lines, and counts them in line numbers") {
  DayLog day = parse("// a day of two clients\n\n   \n" + kBank +
                     "// the only intent:\n"
                     "{\"intent\":\"i1\",\"client\":\"bob\",\"payout\":{\"from\":\"bob-1\",\"destination\":\"KR1\","
                     "\"amount\":700},\"memo\":\"rent\",\"key\":\"k1\",\"sends\":[{\"at\":\"09:30:00\"}]}\n");
  REQUIRE(day.intents.size() == 1);
  CHECK(day.clients == std::vector<std::string>{"ann", "bob"});
  CHECK(day.accounts.size() == 3);
  const DayIntent& i = day.intents[0];
  CHECK(fields(i) ==
        "i1 client=bob kind=payout from=bob-1 to= destination=KR1 amount=700 currency=KRW memo=rent story=plain key=k1 "
        "body_of=\n  at=34200000 after=- during=- next_day=0 key=- amount=- as=- reordered=0 delay=0 timeout=- drop=0 crash= clock=0");
  CHECK(day.send_count() == 1);

  // Three comment lines, then the bank (lines 4 to 9): a bad line 10.
  CHECK_THAT(refusal("// one\n\n// three\n" + kBank + "{\"client\":\"ann\",\"nick\":\"a\"}\n"),
             Contains("t.jsonl:10: "));
}

TEST_CASE("day log: an unknown member is refused with its line number, so a typo cannot pass silently") {
  CHECK_THAT(refusal(kBank + "{\"client\":\"cy\",\"nick\":\"c\"}\n"),
             Contains("t.jsonl:7: ") && Contains("unknown member \"nick\""));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","timeout":50})")),
             Contains("t.jsonl:7: ") && Contains("unknown member \"timeout\""));
  CHECK_THAT(refusal("{\"day\":\"2026-03-02\",\"sed\":1}\n"), Contains("t.jsonl:1: ") && Contains("\"sed\""));
  CHECK_THAT(refusal(kBank + "{\"bank\":\"x\"}\n"),
             Contains("t.jsonl:7: ") && Contains("a line is a \"day\", \"client\", \"account\" or \"intent\""));
}

TEST_CASE("day log: a line that is not a JSON object is refused with its line number") {
  CHECK_THAT(refusal(kBank + "{\"client\":\"cy\"\n"), Contains("t.jsonl:7: not JSON"));
  CHECK_THAT(refusal(kBank + "[1,2]\n"), Contains("t.jsonl:7: each line is a JSON object"));
}

TEST_CASE("day log: names are declared before they are used") {
  CHECK_THAT(refusal("{\"account\":\"x\",\"client\":\"zed\",\"balance\":1,\"currency\":\"KRW\"}\n"),
             Contains("t.jsonl:1: no client \"zed\" was declared"));
  CHECK_THAT(refusal(kBank + R"({"intent":"i1","client":"zed","transfer":{"from":"ann-1","to":"bob-1","amount":1},)"
                             R"("key":"k","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:7: no client \"zed\" was declared"));
  CHECK_THAT(refusal(kBank + R"({"intent":"i1","client":"ann","transfer":{"from":"ann-9","to":"bob-1","amount":1},)"
                             R"("key":"k","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:7: no account \"ann-9\" was declared"));
  CHECK_THAT(refusal(kBank + R"({"intent":"i1","client":"ann","transfer":{"from":"ann-1","to":"bob-9","amount":1},)"
                             R"("key":"k","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:7: no account \"bob-9\" was declared"));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","as":"zed"})")),
             Contains("t.jsonl:7: \"as\": no client \"zed\" was declared"));
  // "nobody" is the account no one has: a transfer to it is fine, declaring it is not.
  CHECK_NOTHROW(parse(kBank + R"({"intent":"i1","client":"ann","transfer":{"from":"ann-1","to":"nobody","amount":1},)"
                              R"("key":"k","sends":[{"at":"10:00:00"}]})"));
  CHECK_THAT(refusal(kBank + "{\"account\":\"nobody\",\"client\":\"ann\",\"balance\":1,\"currency\":\"KRW\"}\n"),
             Contains("t.jsonl:7: ") && Contains("\"nobody\""));
}

TEST_CASE("day log: a client, an account or an intent declared twice is refused") {
  CHECK_THAT(refusal(kBank + "{\"client\":\"ann\"}\n"), Contains("t.jsonl:7: client \"ann\" is declared twice"));
  CHECK_THAT(refusal(kBank + "{\"account\":\"ann-1\",\"client\":\"bob\",\"balance\":1,\"currency\":\"KRW\"}\n"),
             Contains("t.jsonl:7: account \"ann-1\" is declared twice"));
  std::string twice = day_with_sends(R"({"at":"10:00:00"})");
  twice += twice.substr(kBank.size());
  CHECK_THAT(refusal(twice), Contains("t.jsonl:8: intent \"i1\" is declared twice"));
}

TEST_CASE("day log: the day line comes first, and once") {
  CHECK_THAT(refusal(kBank + "{\"day\":\"2026-03-03\"}\n" + day_with_sends(R"({"at":"10:00:00"})").substr(kBank.size())),
             Contains("t.jsonl:7: the \"day\" line comes first, once"));
  DayLog day = parse("{\"day\":\"2026-04-01\",\"seed\":7,\"next_day_clock_ms\":90000000}\n" +
                     day_with_sends(R"({"at":"10:00:00"})").substr(kBank.find('\n') + 1));
  CHECK(day.date == "2026-04-01");
  CHECK(day.seed == std::optional<std::uint64_t>(7));
  CHECK(day.next_day_clock_ms == 90'000'000);
  // Two day lines before anything else: the second must be refused too, whatever the first one held.
  CHECK_THAT(refusal("{\"day\":\"2026-03-02\"}\n" + day_with_sends(R"({"at":"10:00:00"})")),
             Contains("t.jsonl:2: the \"day\" line comes first, once"));
}

TEST_CASE("day log: a send without at, after or during is refused with its line number, and so is one with two") {
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00"},{"delay_ms":5})")),
             Contains("t.jsonl:7: each send has exactly one of \"at\", \"after\" and \"during\""));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","after":5})")),
             Contains("t.jsonl:7: each send has exactly one of"));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00"},{"after":5,"during":5})")),
             Contains("t.jsonl:7: each send has exactly one of"));
}

TEST_CASE("day log: the first send of an intent has at") {
  CHECK_THAT(refusal(day_with_sends(R"({"after":10})")), Contains("t.jsonl:7: the first send has \"at\""));
  CHECK_THAT(refusal(day_with_sends(R"({"during":0})")), Contains("t.jsonl:7: the first send has \"at\""));
  CHECK_THAT(refusal(day_with_sends("")), Contains("t.jsonl:7: \"sends\" is a non-empty array"));
}

// "at" is when a day's first send goes out; the replay sends any later send of that day when the one
// before it allows ("after", "during") and ignores an "at" there, so the log must not say one.
TEST_CASE("day log: only the first send of a day has at") {
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00"},{"at":"11:00:00"})")),
             Contains("t.jsonl:7: only the first send of a day has \"at\""));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00"},{"next_day":true,"at":"09:00:00"},)"
                                    R"({"next_day":true,"at":"09:30:00"})")),
             Contains("t.jsonl:7: only the first send of a day has \"at\""));
}

TEST_CASE("day log: a send's key has the intent key's limit: the replay adds a prefix to both") {
  const std::string long_key(201, 'k');
  CHECK_THAT(refusal(kBank + R"({"intent":"i1","client":"ann","transfer":{"from":"ann-1","to":"bob-1","amount":1},)"
                             R"("key":")" + long_key + R"(","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:7: \"key\" is at most 200 characters"));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00"},{"after":5,"key":")" + long_key + R"("})")),
             Contains("t.jsonl:7: \"key\" is at most 200 characters"));
  CHECK_NOTHROW(parse(day_with_sends(R"({"at":"10:00:00"},{"after":5,"key":")" + std::string(200, 'k') + R"("})")));
}

TEST_CASE("day log: a send is dropped or times out, not both") {
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","drop":true,"timeout_ms":20})")),
             Contains("t.jsonl:7: a send is dropped or times out, not both"));
  CHECK_NOTHROW(parse(day_with_sends(R"({"at":"10:00:00","drop":true},{"after":5,"timeout_ms":20})")));
}

TEST_CASE("day log: crash is before-money or after-money") {
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","crash":"during-money"})")),
             Contains("t.jsonl:7: \"crash\" is \"before-money\" or \"after-money\""));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","crash":true})")),
             Contains("t.jsonl:7: \"crash\" must be a non-empty string"));
  DayLog day = parse(day_with_sends(R"({"at":"10:00:00","crash":"before-money"},{"after":5,"crash":"after-money"})"));
  CHECK(day.intents[0].sends[0].crash == "before-money");
  CHECK(day.intents[0].sends[1].crash == "after-money");
}

TEST_CASE("day log: at is a time of day, HH:MM:SS or HH:MM:SS.mmm") {
  for (const char* bad : {"9:00", "9:00:00", "25:00:00", "24:00:00", "09:60:00", "09:00:60", "09:00:00.5", "noon"}) {
    INFO(bad);
    CHECK_THAT(refusal(day_with_sends(std::string("{\"at\":\"") + bad + "\"}")),
               Contains("t.jsonl:7: \"at\" is a time of day"));
  }
  CHECK_THAT(refusal(day_with_sends(R"({"at":36000000})")), Contains("t.jsonl:7: \"at\" is a time of day"));
  CHECK(parse(day_with_sends(R"({"at":"10:00:00.250"})")).intents[0].sends[0].at_ms == 36'000'250);
}

TEST_CASE("day log: the numbers of a send are bounded") {
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","amount":0})")),
             Contains("t.jsonl:7: \"amount\" must be from 1 to"));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","delay_ms":10001})")),
             Contains("t.jsonl:7: \"delay_ms\" must be from 0 to 10000"));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00"},{"after":-1})")), Contains("t.jsonl:7: \"after\" must be from 0"));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","timeout_ms":0})")),
             Contains("t.jsonl:7: \"timeout_ms\" must be from 1"));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00","delay_ms":1.5})")),
             Contains("t.jsonl:7: \"delay_ms\" must be an integer"));
}

TEST_CASE("day log: an intent is a transfer, a payout or another intent's body: exactly one") {
  CHECK_THAT(refusal(kBank + R"({"intent":"i1","client":"ann","transfer":{"from":"ann-1","to":"bob-1","amount":1},)"
                             R"("payout":{"from":"ann-1","destination":"KR1","amount":1},)"
                             R"("key":"k","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:7: an intent has exactly one of \"transfer\", \"payout\" and \"body_of\""));
  CHECK_THAT(refusal(kBank + R"({"intent":"i1","client":"ann","key":"k","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:7: an intent has exactly one of"));
  CHECK_THAT(refusal(kBank + R"({"intent":"i1","client":"ann","transfer":{"from":"ann-1","to":"ann-1","amount":1},)"
                             R"("key":"k","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:7: a transfer goes to another account"));
  CHECK_THAT(refusal(kBank + R"({"intent":"i1","client":"ann","payout":{"from":"ann-1","to":"bob-1","amount":1},)"
                             R"("key":"k","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:7: unknown member \"to\""));
}

TEST_CASE("day log: body_of names an earlier intent, and takes its body") {
  const std::string original =
      R"({"intent":"i1","client":"ann","transfer":{"from":"ann-1","to":"bob-1","amount":1234},"memo":"rent",)"
      R"("key":"k1","sends":[{"at":"10:00:00"}]})"
      "\n";
  const std::string copy = R"({"intent":"i2","client":"bob","body_of":"i1","key":"k1","sends":[{"at":"10:01:00"}]})"
                           "\n";
  DayLog day = parse(kBank + original + copy);
  const DayIntent& i2 = day.intents.at(1);
  CHECK(i2.body_of == "i1");
  CHECK(i2.client == "bob");
  CHECK(fields(i2) ==
        "i2 client=bob kind=transfer from=ann-1 to=bob-1 destination= amount=1234 currency=KRW memo=rent story=plain "
        "key=k1 body_of=i1\n  at=36060000 after=- during=- next_day=0 key=- amount=- as=- reordered=0 delay=0 "
        "timeout=- drop=0 crash= clock=0");

  CHECK_THAT(refusal(kBank + copy + original), Contains("t.jsonl:7: \"body_of\": no earlier intent \"i1\""));
  CHECK_THAT(refusal(kBank + original + R"({"intent":"i2","client":"bob","body_of":"i9","key":"k","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:8: \"body_of\": no earlier intent \"i9\""));
  CHECK_THAT(refusal(kBank + R"({"intent":"i1","client":"bob","body_of":"i1","key":"k","sends":[{"at":"10:00:00"}]})"),
             Contains("t.jsonl:7: \"body_of\": no earlier intent \"i1\""));
}

// The replay tags a copy's memo with the intent its body_of names, and the audit knows only the originals'
// tags: a copy of a copy would send a body no one sent before, and its money would count as misplaced.
TEST_CASE("day log: body_of names an original, not another copy") {
  CHECK_THAT(refusal(kBank +
                     R"({"intent":"i1","client":"ann","transfer":{"from":"ann-1","to":"bob-1","amount":5},"key":"k",)"
                     R"("sends":[{"at":"10:00:00"}]})" "\n"
                     R"({"intent":"i2","client":"bob","body_of":"i1","key":"k","sends":[{"at":"10:00:01"}]})" "\n"
                     R"({"intent":"i3","client":"ann","body_of":"i2","key":"k","sends":[{"at":"10:00:02"}]})" "\n"),
             Contains("t.jsonl:9: \"body_of\": \"i2\" is itself a copy; name its original \"i1\""));
}

TEST_CASE("day log: next-day sends come last, and the first of them has at") {
  DayLog day = parse(day_with_sends(
      R"({"at":"10:00:00","timeout_ms":10},{"after":20},{"next_day":true,"at":"09:00:00"},{"next_day":true,"after":5})"));
  const auto& sends = day.intents[0].sends;
  REQUIRE(sends.size() == 4);
  CHECK_FALSE(sends[1].next_day);
  CHECK(sends[2].next_day);
  CHECK(sends[3].next_day);
  // The whole intent may be the next day's.
  CHECK_NOTHROW(parse(day_with_sends(R"({"at":"09:00:00","next_day":true})")));

  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00"},{"next_day":true,"after":5})")),
             Contains("t.jsonl:7: the first next-day send has \"at\""));
  CHECK_THAT(refusal(day_with_sends(R"({"at":"10:00:00"},{"next_day":true,"at":"09:00:00"},{"after":5})")),
             Contains("t.jsonl:7: a send of the day after a next-day send"));
}

TEST_CASE("day log: a day without intents is refused") {
  CHECK_THAT(refusal(kBank), Contains("t.jsonl: the day has no intents"));
  CHECK_THAT(refusal(""), Contains("the day has no intents"));
}

TEST_CASE("day log: write_day_log then parse_day_log gives back the same day, every member of every send") {
  DayLog day;
  day.date = "2026-05-06";
  day.seed = 99;
  day.next_day_clock_ms = 26LL * 3600 * 1000;
  day.clients = {"ann", "bob"};
  day.accounts = {{"ann-1", "ann", 500'000, "KRW"}, {"ann-2", "ann", 0, "USD"}, {"bob-1", "bob", 7, "KRW"}};

  DayIntent transfer;
  transfer.id = "i1", transfer.client = "ann", transfer.kind = "transfer", transfer.from = "ann-1";
  transfer.to = "bob-1", transfer.amount = 200'000, transfer.currency = "KRW", transfer.memo = "deposit \"cash\"";
  transfer.story = "teller-change", transfer.key = "teller-1";
  DaySend first, second, third, fourth;
  first.at_ms = 36'000'250, first.delay_ms = 300, first.timeout_ms = 100, first.crash = "before-money";
  second.during_ms = 3, second.amount = 300'000, second.key = "teller-2", second.as_client = "bob";
  second.reordered = true, second.drop = true, second.clock_ms = 31'000;
  third.after_ms = 40, third.crash = "after-money";
  fourth.next_day = true, fourth.at_ms = kDayOpensMs;
  transfer.sends = {first, second, third, fourth};

  DayIntent payout;
  payout.id = "i2", payout.client = "ann", payout.kind = "payout", payout.from = "ann-1";
  payout.destination = "KR123", payout.amount = 1, payout.currency = "USD";  // not its account's currency
  payout.story = "plain", payout.key = "k2";
  payout.sends = {first};

  DayIntent copy = transfer;  // the body of i1, sent by bob with i1's key
  copy.id = "i3", copy.client = "bob", copy.body_of = "i1", copy.story = "foreign-key";
  copy.sends = {first};

  DayIntent nobody = transfer;
  nobody.id = "i4", nobody.to = kUnknownAccount, nobody.memo = "", nobody.story = "unknown-account";
  nobody.sends = {first};
  day.intents = {transfer, payout, copy, nobody};

  const std::string text = written(day);
  DayLog back = parse(text);
  CHECK(back.date == day.date);
  CHECK(back.seed == day.seed);
  CHECK(back.next_day_clock_ms == day.next_day_clock_ms);
  CHECK(back.clients == day.clients);
  REQUIRE(back.accounts.size() == day.accounts.size());
  for (std::size_t k = 0; k < day.accounts.size(); ++k) {
    CHECK(back.accounts[k].name == day.accounts[k].name);
    CHECK(back.accounts[k].client == day.accounts[k].client);
    CHECK(back.accounts[k].balance == day.accounts[k].balance);
    CHECK(back.accounts[k].currency == day.accounts[k].currency);
  }
  REQUIRE(back.intents.size() == day.intents.size());
  for (std::size_t k = 0; k < day.intents.size(); ++k) CHECK(fields(back.intents[k]) == fields(day.intents[k]));
  CHECK(written(back) == text);
}

TEST_CASE("day log: clock_text and parse_clock_text are each other's inverse over the day") {
  const std::int64_t times[] = {0, 1, 999, 1'000, 59'999, 3'599'999, kDayOpensMs, 45'296'789, 86'399'999};
  for (std::int64_t ms : times) {
    INFO(ms);
    CHECK(parse_clock_text(clock_text(ms)).value_or(-1) == ms);
  }
  CHECK(clock_text(0) == "00:00:00.000");
  CHECK(clock_text(kDayOpensMs) == "09:00:00.000");
  CHECK(clock_text(86'399'999) == "23:59:59.999");
  CHECK(parse_clock_text("09:00:00").value_or(-1) == kDayOpensMs);
  CHECK(parse_clock_text("23:59:59.999").value_or(-1) == 86'399'999);
  for (const char* bad : {"", "9:00", "9:00:00", "09:00", "24:00:00", "25:00:00", "09:60:00", "09:00:60",
                          "09:00:00.5", "09:00:00.50", "09:00:00.2500", "09:00:00,250", "ab:cd:ef", "09-00-00"}) {
    INFO('"' << bad << '"');
    CHECK_FALSE(parse_clock_text(bad));
  }
}

// sscanf's %u skips spaces and takes a sign, so these have the right length and were read as times.
TEST_CASE("day log: a time of day is digits only: no spaces, no signs") {
  for (const char* bad : {" 9:00:00", "+9:00:00", "-0:00:00", "09:00:+1", "09:00:00. 50", "09:00:00.+50", "09:00:00.-01"}) {
    INFO('"' << bad << '"');
    CHECK_FALSE(parse_clock_text(bad));
  }
}

TEST_CASE("day log: every example day in logs/examples, and the committed default day, parse") {
  const std::filesystem::path examples = std::filesystem::path(LAB_SOURCE_DIR) / "logs" / "examples";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(examples)) {
    if (entry.path().extension() != ".jsonl") continue;
    ++files;
    INFO(entry.path().string());
    DayLog day;
    CHECK_NOTHROW(day = read_day_log(entry.path().string()));
    CHECK_FALSE(day.intents.empty());
  }
  CHECK(files >= 11);
  CHECK(read_day_log((std::filesystem::path(LAB_SOURCE_DIR) / "logs" / "day.jsonl").string()).intents.size() >= 20'000);
  CHECK_THROWS_WITH(read_day_log("/no/such/day.jsonl"), Contains("/no/such/day.jsonl: cannot read it"));
}

// ===================================== day_generate =====================================

TEST_CASE("day generate: the same seed generates the same day, byte for byte; another seed another day") {
  const std::string one = written(generate_day({.seed = 7, .intents = 500}));
  CHECK(written(generate_day({.seed = 7, .intents = 500})) == one);
  CHECK(written(generate_day({.seed = 8, .intents = 500})) != one);
}

TEST_CASE("day generate: the generator makes the number of intents asked for (one more when a two-intent story ends it)") {
  for (std::int64_t n : {1, 2, 10, 333, 2'000}) {
    INFO(n);
    const auto made = static_cast<std::int64_t>(generate_day({.seed = 3, .intents = n}).intents.size());
    CHECK(made >= n);
    CHECK(made <= n + 1);
  }
  CHECK(big_day().intents.size() >= 20'000);
  CHECK(big_day().intents.size() <= 20'001);
}

TEST_CASE("day generate: a generated day parses back to the same day") {
  const std::string text = written(generate_day({.seed = 11, .intents = 2'000}));
  CHECK(written(parse(text)) == text);
}

TEST_CASE("day generate: every story of the day appears in a day of 20,000 intents") {
  // kStories in grader/day/day_generate.cc: keep this list in step with it.
  const std::set<std::string> stories = {
      "plain",        "gateway-timeout",    "lb-drop",           "signal-loss",     "double-click",
      "backoff",      "give-up",            "concurrent-retry",  "sdk-retry",       "teller-change",
      "key-collision", "foreign-key",       "crash-before-money", "crash-after-money", "after-retention",
      "overdraft",    "unknown-account"};
  std::map<std::string, int> seen;
  for (const auto& i : big_day().intents) ++seen[i.story];
  for (const auto& s : stories) {
    INFO(s);
    CHECK(seen[s] > 0);
  }
  for (const auto& [s, n] : seen) {
    INFO(s);
    CHECK(stories.count(s) == 1);
  }
}

// So that the only 402 of a generated day is an "overdraft": every other send can be paid for, even if
// every one of them moved money.
TEST_CASE("day generate: opening balances cover every send of every account, except the overdrafts'") {
  const DayLog& day = big_day();
  std::map<std::string, std::int64_t> spend;
  for (const auto& i : day.intents) {
    if (i.story == "overdraft") continue;
    for (const auto& s : i.sends) spend[i.from] += s.amount.value_or(i.amount);
  }
  for (const auto& [account, amount] : spend) {
    INFO(account);
    REQUIRE(day.account(account));
    CHECK(day.account(account)->balance >= amount);
  }
}

TEST_CASE("day generate: an overdraft asks for more than all the money in the bank") {
  const DayLog& day = big_day();
  std::int64_t bank = 0;
  for (const auto& a : day.accounts) bank += a.balance;
  int overdrafts = 0;
  for (const auto& i : day.intents)
    if (i.story == "overdraft") {
      ++overdrafts;
      CHECK(i.amount > bank);
    }
  CHECK(overdrafts > 0);
}

TEST_CASE("day generate: only the unknown-account story sends money to nobody") {
  int unknown = 0;
  for (const auto& i : big_day().intents) {
    INFO(i.id << " " << i.story);
    CHECK((i.to == kUnknownAccount) == (i.story == "unknown-account"));
    unknown += i.story == "unknown-account";
  }
  CHECK(unknown > 0);
}

TEST_CASE("day generate: a generated day is in time order, its sends are within the day, and a copy follows its original") {
  const DayLog& day = big_day();
  std::int64_t previous = 0;
  for (const auto& i : day.intents) {
    INFO(i.id);
    REQUIRE(i.sends.front().at_ms);
    CHECK(*i.sends.front().at_ms >= previous);
    CHECK(*i.sends.front().at_ms >= kDayOpensMs);
    CHECK(*i.sends.front().at_ms < 18LL * 3'600'000);
    previous = *i.sends.front().at_ms;
    if (!i.body_of.empty()) {
      const DayIntent* original = day.intent(i.body_of);
      REQUIRE(original);
      CHECK(original < &i);
      CHECK(original->key == i.key);
      CHECK(original->client != i.client);
    }
  }
}

// ===================================== day_body =====================================

TEST_CASE("day body: a reordered body is the same JSON value in other bytes, and carries the intent's tag") {
  MadeUpDay d;
  const DayIntent& transfer = d.intent("ann", 4'200);
  const std::string plain = day_body(d.day, transfer, d.replay, 4'200, false);
  const std::string reordered = day_body(d.day, transfer, d.replay, 4'200, true);
  CHECK(reordered != plain);
  CHECK(nlohmann::json::parse(reordered) == nlohmann::json::parse(plain));
  CHECK(nlohmann::json::parse(plain) == nlohmann::json{{"from_account", 1}, {"to_account", 2}, {"amount", 4'200},
                                                       {"currency", "KRW"}, {"memo", "rent #r1.i1"}});

  DayIntent payout = transfer;
  payout.kind = "payout", payout.to = "", payout.destination = "KR42", payout.memo = "";
  const std::string p = day_body(d.day, payout, d.replay, 7, false), q = day_body(d.day, payout, d.replay, 7, true);
  CHECK(p != q);
  CHECK(nlohmann::json::parse(p) == nlohmann::json::parse(q));
  CHECK(nlohmann::json::parse(p)["memo"] == "#r1.i1");  // no words: the tag alone

  DayIntent lost = transfer;
  lost.to = kUnknownAccount;
  CHECK(nlohmann::json::parse(day_body(d.day, lost, d.replay, 1, false))["to_account"] == (1LL << 53) - 1);

  DayIntent copy = transfer;  // another client sending i1's body: i1's tag
  copy.id = "i9", copy.client = "bob", copy.body_of = "i1";
  CHECK(day_body(d.day, copy, d.replay, 4'200, false) == plain);
}

// ===================================== day_audit =====================================

TEST_CASE("day audit: a clean replay counts no damage of any kind") {
  MadeUpDay d;
  const DayIntent& a = d.intent("ann", 1'000);
  const DayIntent& b = d.intent("bob", 2'500, 2);  // a retry answered with the stored response
  const DayIntent& refused = d.intent("ann", 10 * kOpening);
  d.answered(a, 0, 201, d.created(d.moved(a)));
  const LedgerEntry& e = d.moved(b);
  d.answered(b, 0, std::nullopt);
  d.answered(b, 1, 201, d.created(e));
  d.answered(refused, 0, 402, R"({"type":"insufficient-funds"})");
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "none");
  CHECK(damage.clean());
  CHECK(damage.notes.empty());
}

TEST_CASE("day audit: duplicate: money moved twice for one intent on one day counts each extra movement") {
  MadeUpDay d;
  // Each send moved money; the client heard back only from the last (two answers would also be inconsistent).
  const DayIntent& twice = d.intent("ann", 1'000, 2);
  const DayIntent& thrice = d.intent("bob", 1'000, 3);
  d.moved(twice);
  d.answered(twice, 0, std::nullopt);
  d.answered(twice, 1, 201, d.created(d.moved(twice)));
  d.moved(thrice), d.moved(thrice);
  d.answered(thrice, 0, std::nullopt);
  d.answered(thrice, 1, std::nullopt);
  d.answered(thrice, 2, 201, d.created(d.moved(thrice)));
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "dup=3");
  CHECK(damage.intents(Damage::Duplicate) == std::vector<std::string>{"i1", "i2"});
}

TEST_CASE("day audit: rekeyed, not duplicate: an intent sent under several keys moved money once per key") {
  MadeUpDay d;
  // The client's doing: three sends under three keys, three movements (what even stage 6 does).
  DayIntent& new_key_each = d.intent("ann", 1'000, 3);
  new_key_each.sends[1].key = "k-second";
  new_key_each.sends[2].key = "k-third";
  d.moved(new_key_each), d.moved(new_key_each);
  d.answered(new_key_each, 0, std::nullopt);
  d.answered(new_key_each, 1, std::nullopt);
  d.answered(new_key_each, 2, 201, d.created(d.moved(new_key_each)));
  // Two keys, three movements: one is the client's, the one beyond the keys the server's (stage 1).
  DayIntent& sdk = d.intent("bob", 1'000, 3);
  sdk.sends[2].key = "k-sdk-2";
  d.moved(sdk), d.moved(sdk);
  d.answered(sdk, 0, std::nullopt);
  d.answered(sdk, 1, std::nullopt);
  d.answered(sdk, 2, 201, d.created(d.moved(sdk)));
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "dup=1 rekeyed*=3");
  CHECK(damage.intents(Damage::Rekeyed) == std::vector<std::string>{"i1", "i2"});
  CHECK(damage.intents(Damage::Duplicate) == std::vector<std::string>{"i2"});
  CHECK_FALSE(damage.clean());  // the server's duplicate
  CHECK_FALSE(is_server_damage(Damage::Rekeyed));
}

TEST_CASE("day audit: expired, not duplicate: one movement on each day, after the key's retention") {
  MadeUpDay d;
  const DayIntent& i = d.sent_today_and_next_day();
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "expired*=1");
  CHECK(damage.intents(Damage::Expired) == std::vector<std::string>{"i1"});
  CHECK(damage.clean());  // the published policy, not damage

  // Two movements on the next day are a duplicate there.
  d.answered(i, 1, 201, d.created(d.moved(i, {}, 2'000'000)));
  CHECK(d.audit().count(Damage::Duplicate) == 1);
}

TEST_CASE("day audit: lost: a client told success for a request that never moved money") {
  MadeUpDay d;
  const DayIntent& lost = d.intent("ann");
  const DayIntent& refused = d.intent("ann");  // a 4xx is no promise: nothing should have moved
  const DayIntent& unanswered = d.intent("bob");
  d.answered(lost, 0, 201, R"({"id":77})");
  d.answered(refused, 0, 422, R"({"type":"validation"})");
  d.answered(unanswered, 0, std::nullopt);
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "lost=1");
  CHECK(damage.intents(Damage::Lost) == std::vector<std::string>{"i1"});
}

// The teller of the article: 200,000 timed out, 300,000 sent again under the same key.
TEST_CASE("day audit: mismatch, not lost: a changed amount under an old key told success that never happened") {
  MadeUpDay d;
  DayIntent& teller = d.intent("ann", 20'000, 2);
  teller.sends[1].amount = 30'000;
  const LedgerEntry& first = d.moved(teller);
  d.answered(teller, 0, std::nullopt);
  d.answered(teller, 1, 201, d.created(first));  // the 20,000's stored answer
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "mismatch=1");
  CHECK(damage.intents(Damage::Mismatch) == std::vector<std::string>{"i1"});

  SECTION("a server that moves both is a duplicate, and nothing is misplaced: both were asked for") {
    d.replay.attempts.back().response_body = d.created(d.moved(teller, 30'000));
    CHECK(summary(d.audit()) == "dup=1");
  }
  SECTION("a server that refuses the change (422) is right") {
    d.replay.attempts.back().status = 422;
    CHECK(summary(d.audit()) == "none");
  }
}

TEST_CASE("day audit: cross-client: an answer that is another client's entry") {
  MadeUpDay d;
  const DayIntent& ann = d.intent("ann");
  const DayIntent& bob = d.intent("bob");  // its own key: the answer alone gives it away
  const LedgerEntry& anns = d.moved(ann);
  d.answered(ann, 0, 201, d.created(anns));
  d.answered(bob, 0, 201, d.created(anns));
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "lost=1 cross=1");  // and bob's money never moved
  CHECK(damage.intents(Damage::CrossClient) == std::vector<std::string>{"i2"});

  SECTION("an answer that is the client's own other entry is not cross-client") {
    const DayIntent& bobs_other = d.intent("bob");
    d.answered(bobs_other, 0, 201, d.created(d.moved(bobs_other)));
    d.replay.attempts[1].response_body = d.created(d.replay.ledger.back());
    CHECK(summary(d.audit()) == "lost=1");
  }
}

TEST_CASE("day audit: cross-client: a request that never ran because another client used its key") {
  MadeUpDay d;
  const DayIntent& ann = d.intent("ann");
  DayIntent& bob = d.intent("bob", 2'000);
  bob.key = ann.key;
  d.answered(ann, 0, 201, d.created(d.moved(ann)));
  d.answered(bob, 0, 422, R"({"type":"idempotency-key-reused"})");
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "cross=1");
  CHECK(damage.intents(Damage::CrossClient) == std::vector<std::string>{"i2"});

  SECTION("keys scoped by client: both run, no damage") {
    d.replay.attempts.back().status = 201;
    d.replay.attempts.back().response_body = d.created(d.moved(bob));
    CHECK(summary(d.audit()) == "none");
  }
  SECTION("refused for its own reasons (402), it is not the other client's doing") {
    d.replay.attempts.back().status = 402;
    CHECK(summary(d.audit()) == "none");
  }
}

TEST_CASE("day audit: cross-client: another client sending a copy of a body with its key is told that client's entry") {
  MadeUpDay d;
  const DayIntent& original = d.intent("ann");
  DayIntent& copy = d.intent("bob");
  copy.body_of = original.id, copy.from = original.from, copy.to = original.to, copy.key = original.key;
  const LedgerEntry& e = d.moved(original);
  d.answered(original, 0, 201, d.created(e));
  d.answered(copy, 0, 201, d.created(e));
  CHECK(summary(d.audit()) == "cross=1");

  SECTION("refused because bob does not hold the account: right") {
    d.replay.attempts.back().status = 403;
    d.replay.attempts.back().response_body = R"({"type":"forbidden"})";
    CHECK(summary(d.audit()) == "none");
  }
}

TEST_CASE("day audit: inconsistent: one request, two different final answers") {
  MadeUpDay d;
  const DayIntent& i = d.intent("ann", 1'000, 2);
  const LedgerEntry& e = d.moved(i);
  d.answered(i, 0, 201, d.created(e));
  SECTION("201 with one body, 201 with another") {
    d.answered(i, 1, 201, R"({"id":1,"amount":1000,"memo":"recomputed"})");
    CHECK(summary(d.audit()) == "inconsistent=1");
  }
  SECTION("201 then 422 for the same bytes") {
    d.answered(i, 1, 422, R"({"type":"idempotency-key-reused"})");
    CHECK(summary(d.audit()) == "inconsistent=1");
  }
  SECTION("the same answer twice") {
    d.answered(i, 1, 201, d.created(e));
    CHECK(summary(d.audit()) == "none");
  }
  // "Still running" and "busy" invite the client to ask again; they are not answers to the request.
  SECTION("409 request-in-progress, then 201") {
    d.answered(i, 1, 409, kInProgress);
    CHECK(summary(d.audit()) == "none");
  }
  SECTION("503, then 201") {
    d.answered(i, 1, 503, R"({"type":"busy"})");
    CHECK(summary(d.audit()) == "none");
  }
}

TEST_CASE("day audit: inconsistent: not across days, keys or amounts") {
  MadeUpDay d;
  d.sent_today_and_next_day();
  CHECK(d.audit().count(Damage::Inconsistent) == 0);

  MadeUpDay keys;
  DayIntent& j = keys.intent("ann", 1'000, 2);
  j.sends[1].key = "another-key";
  keys.answered(j, 0, 201, keys.created(keys.moved(j)));
  keys.answered(j, 1, 422, R"({"type":"validation"})");
  CHECK(keys.audit().count(Damage::Inconsistent) == 0);

  MadeUpDay amounts;
  DayIntent& t = amounts.intent("ann", 1'000, 2);
  t.sends[1].amount = 2'000;
  amounts.answered(t, 0, 201, amounts.created(amounts.moved(t)));
  amounts.answered(t, 1, 422, R"({"type":"idempotency-key-reused"})");
  CHECK(summary(amounts.audit()) == "none");
}

TEST_CASE("day audit: misplaced: an entry under an intent's tag that none of its sends asked for") {
  MadeUpDay d;
  const DayIntent& i = d.intent("ann", 1'000);
  const LedgerEntry& wrong = d.moved(i, 999);
  d.answered(i, 0, 201, d.created(wrong));
  DayDamage damage = d.audit();
  CHECK(damage.count(Damage::Misplaced) == 1);
  CHECK(damage.intents(Damage::Misplaced) == std::vector<std::string>{"i1"});
  CHECK(damage.count(Damage::Lost) == 1);  // the 1,000 asked for never moved
  CHECK(damage.count(Damage::Conservation) == 0);
  REQUIRE(damage.notes.size() == 1);
  CHECK_THAT(damage.notes[0], Contains("ledger entry 1 of i1"));
}

TEST_CASE("day audit: misplaced: an entry that names no intent of the day, on the day's accounts") {
  MadeUpDay d;
  const DayIntent& i = d.intent("ann");
  d.answered(i, 0, 201, d.created(d.moved(i)));
  d.record({50, "transfer", 2, 1, "", 300, "KRW", "rent", 0});                // no tag
  d.record({51, "transfer", 1, 2, "", 300, "KRW", "rent #r0.i1", 0});         // another run's tag
  d.record({52, "transfer", 77, 78, "", 300, "KRW", "someone else's", 0});  // not our accounts: not ours to judge
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "misplaced=2");
  CHECK(damage.intents(Damage::Misplaced).empty());
  REQUIRE(damage.notes.size() == 2);
  CHECK_THAT(damage.notes[0], Contains("ledger entry 50 names no intent"));
}

TEST_CASE("day audit: misplaced and conservation: a balance the ledger does not explain") {
  MadeUpDay d;
  const DayIntent& i = d.intent("ann");
  d.answered(i, 0, 201, d.created(d.moved(i)));
  d.replay.balances[2] += 5;  // money from nowhere
  DayDamage damage = d.audit();
  CHECK(summary(damage) == "misplaced=1 conserv=5");
  CHECK_FALSE(damage.clean());
}

TEST_CASE("day audit: conservation: payouts leave the bank; any other difference is counted in minor units") {
  MadeUpDay d;
  DayIntent& payout = d.intent("ann", 7'000);
  payout.kind = "payout", payout.to = "", payout.destination = "KR42";
  d.answered(payout, 0, 201, d.created(d.moved(payout)));
  CHECK(d.replay.balances[1] == kOpening - 7'000);
  CHECK(summary(d.audit()) == "none");

  // A balance short by 40 and another short by 60: 100 vanished.
  d.replay.balances[1] -= 40;
  d.replay.balances[2] -= 60;
  CHECK(summary(d.audit()) == "misplaced=2 conserv=100");
}

TEST_CASE("day audit: column names and descriptions cover every kind of damage") {
  std::set<std::string> names;
  for (Damage kind : kAllDamage) {
    names.insert(std::string(column_name(kind)));
    CHECK(column_name(kind) != "?");
    CHECK(describe(kind) != "?");
  }
  CHECK(names.size() == kAllDamage.size());
}
