# The front door. `make demo` and `make test` are the two promised commands (README.md); both install
# missing Debian packages first (scripts/ensure-deps.sh) and rebuild only what changed.
BUILD      ?= build
TEST_ENV   ?=
JOBS       ?= $(shell nproc)
# Tests at a time: most of a test's time is spent waiting on the servers it starts (leases, timeouts, the
# grader's patience), so three per core finish sooner; CPU-heavy ones are marked (chromium: one at a time).
# No verdict depends on the machine's load (docs/teach/grader.md "The grader", what it assumes about time).
TEST_JOBS  ?= $(shell echo $$(( $$(nproc) * 3 )))
CMAKE_ARGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo
# Warnings are errors in every build made here (make test, asan, tsan, CI); CMake's own default is OFF.
WERROR     ?= ON
SEEDS      ?= 20
# Each write transaction of a slowed server sleeps this long twice (common/db.cc:slow_write_delay).
SLOW_WRITE_MS ?= 10
# tests/tsan.supp: one suppression, for Debian's uninstrumented libcpp-httplib.so (why: in the file).
TSAN_ENV   := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp
TSAN_ARGS  := -DCMAKE_BUILD_TYPE=Debug -DLAB_SANITIZE=thread

.PHONY: all deps build first-contact test browser-test demo playground book grade starter starter-check asan tsan sanitize ci-sanitize slow-matrix tsan-matrix lesson-diffs gradescope mutants mutation-score soak load fuzz bench bench-day multi class-demo class-check clean help

all: build

help:
	@echo "make demo          build, then show stage 1 duplicating a retried transfer"
	@echo "make test          build, then run every test (unit, end-to-end, grader matrix, browser)"
	@echo "make browser-test  build, then only the tests in headless chromium (playground, report); screenshots"
	@echo "make playground    build, then serve the browser playground on http://127.0.0.1:8090/ (PORT=...), the book at /book/"
	@echo "make book          the text (LAB.md and docs/) as a small website in $(BUILD)/book/ (pandoc)"
	@echo "make grade STAGE=N build the learner's server and grade stages 1..N (SERVER=\"...\" for your own)"
	@echo "make starter DEST=dir  write the learner's copy of the lab, without the answers (LANG=python: a Python one)"
	@echo "make starter-check build a starter copy from scratch and grade it (stage 1 passes, 2 fails; LANG=python too)"
	@echo "make sanitize      every test under ASan+UBSan, then under TSan, with the figures (make asan | tsan: one)"
	@echo "make ci-sanitize   CI's pass: units, e2e, the matrix's rows, soak, PostgreSQL under ASan+UBSan (~6 min)"
	@echo "make slow-matrix   the grader matrix for SEEDS seeds (20), every write slowed by SLOW_WRITE_MS (10)"
	@echo "make tsan-matrix   the grader matrix for SEEDS seeds under ThreadSanitizer (build-tsan)"
	@echo "make lesson-diffs  regenerate stages/*/lesson.diff"
	@echo "make mutants       build stage 6's mutants and grade each on MUTANT_SEEDS seeds (default 10)"
	@echo "make mutation-score  operator mutants of stages 2-6: MUTATION_SAMPLE (100) built and graded in MUTATION_MINUTES (20)"
	@echo "make soak          ROUNDS crash-and-retry rounds on stage 6 (200), each checked; SEED=S repeats a run"
	@echo "make load          bounded loopback load on stage 6: 64 and 256 connections, slow clients (~40 s)"
	@echo "make gradescope    build/gradescope/autograder.zip (edit scripts/gradescope/config.env first)"
	@echo "make fuzz          libFuzzer on the input parsers, then HTTP mutations against stage 6, SECONDS (60) in all"
	@echo "make bench         one table: SQLite and HTTP ceilings, every stage under wrk, ratios, goals (< 5 min)"
	@echo "make bench-day     replay a million-send day on stage 6 (DAY_INTENTS=952400): sends/s, peak memory"
	@echo "make class-demo    grader class on 30 made-up submissions (stages, wrong turns, mutants, hostile servers), timed"
	@echo "make class-check   the same class checked: each row equals grading that learner alone, a rerun grades nobody"
	@echo "make multi         stage 6 on PostgreSQL, three instances on one database: crash, pause, the day; zero damage"
	@echo "make first-contact fresh clones timed: make demo to the day's table, a starter's first grade, make test (~25 min)"
	@echo "make clean         remove build folders"

deps:
	@scripts/ensure-deps.sh

# scripts/build.sh configures the folder once (Ninja and ccache when installed) and builds: `make build` and
# `make test` everything, with the compiler's output; the learner's commands only what they run, quietly
# (a progress line; the output in $(BUILD)/build.log, its errors shown when the build fails).
BUILD_ENV = BUILD=$(BUILD) JOBS=$(JOBS) WERROR=$(WERROR) CMAKE_ARGS="$(CMAKE_ARGS)"
build: deps
	@$(BUILD_ENV) scripts/build.sh all

# The browser tests (tests/browser/) need chromium, tests/postgres a PostgreSQL server (a throwaway
# cluster), and the grader --sandbox tests bwrap: installed here, so a fresh machine runs them too.
test: build
	@scripts/ensure-deps.sh browser postgres bubblewrap book
	cd $(BUILD) && $(TEST_ENV) ctest --output-on-failure -j$(TEST_JOBS)

# Only the browser tests (docs/teach/the-playground.md "The playground"): the CDP harness, the report, the playground's tours and
# free mode, in headless chromium; screenshots in $(BUILD)/test-output/screenshots/. The report test runs
# the grader matrix first (its report is the matrix's --html).
browser-test: build
	@scripts/ensure-deps.sh browser book
	cd $(BUILD) && $(TEST_ENV) ctest --output-on-failure -V -R '^browser: '
	@echo "screenshots: $(BUILD)/test-output/screenshots/"

demo: deps
	@$(BUILD_ENV) scripts/build.sh --quiet "the stage servers and the grader" stage_servers grader
	@BUILD=$(BUILD) scripts/demo.sh

# The browser playground (docs/teach/the-playground.md "The playground"): guided tours and free play on the real stage servers.
PORT ?= 8090
playground: deps book
	@$(BUILD_ENV) scripts/build.sh --quiet "the playground and the stage servers" playground stage_servers
	$(BUILD)/playground/playground --port $(PORT) --bin-dir $(BUILD)/stages --book-dir $(BUILD)/book

# The book (docs/teach/the-playground.md "The book"): LAB.md and every chapter as pages of a small static site,
# rendered by pandoc into $(BUILD)/book/ in a few seconds; the playground serves it at /book/.
book:
	@scripts/ensure-deps.sh book
	@python3 scripts/book/build_book.py --out $(BUILD)/book

# The learner's path (docs/learn/for-learners.md "For learners"): the starter copy, and the loop of grading one's own server.
STAGE ?= 1
# The learner's language: C++ (learner/), or Python (learner-python/) in a copy made with
# `make starter LANG=python`, whose .learner-language says so (scripts/make-starter.sh).
LEARNER_LANGUAGE := $(or $(shell cat .learner-language 2>/dev/null),cpp)
# LANG on make's command line names the starter's language; from the environment it is the locale.
STARTER_LANGUAGE := $(if $(filter command line,$(origin LANG)),$(LANG),cpp)
# With SERVER= the learner's server is their own, and a Python learner's needs no build: only the grader is built.
grade: deps
	@$(BUILD_ENV) scripts/build.sh --quiet $(if $(or $(SERVER),$(filter python,$(LEARNER_LANGUAGE))),"the grader" grader,"your server and the grader" learner_server grader)
	@BUILD=$(BUILD) LEARNER_LANGUAGE=$(LEARNER_LANGUAGE) scripts/grade.sh $(STAGE)

starter:
	@test -n "$(DEST)" || { echo "usage: make starter DEST=../my-lab [LANG=python]" >&2; exit 2; }
	@env -u LANG scripts/make-starter.sh --language $(STARTER_LANGUAGE) $(DEST)

# A starter copy built from scratch in a temporary folder: its tests pass, stage 1 passes, stage 2 fails.
# LANG=python: a Python starter copy, graded without its tests: stage 1 passes, stage 2 fails.
starter-check: deps
	@env -u LANG scripts/starter-check.sh --language $(STARTER_LANGUAGE)

# The tests under the sanitizers, with their figures (scripts/sanitize.sh says how reports are caught):
# asan = AddressSanitizer + UBSan in build-asan, tsan = ThreadSanitizer in build-tsan, sanitize = both.
asan: deps
	@scripts/ensure-deps.sh browser postgres bubblewrap
	@JOBS=$(JOBS) scripts/sanitize.sh asan

tsan: deps
	@scripts/ensure-deps.sh browser postgres bubblewrap
	@JOBS=$(JOBS) scripts/sanitize.sh tsan

sanitize: deps
	@scripts/ensure-deps.sh browser postgres bubblewrap
	@JOBS=$(JOBS) scripts/sanitize.sh asan tsan

# CI's pass (.ci/run): only the tests labelled sanitize-ci, built from the targets they need (tests/CMakeLists.txt).
ci-sanitize: deps
	@scripts/ensure-deps.sh postgres
	@JOBS=$(JOBS) scripts/sanitize.sh --ci asan

# The grader's verdict must not depend on how fast the server or the machine is (docs/teach/grader.md "The grader",
# what it assumes about time): the matrix must hold its staircase for SEEDS seeds in a row on a server
# slowed on purpose, and on the ThreadSanitizer build. FIRST_SEED=S repeats a run's seeds.
slow-matrix: build
	BUILD=$(BUILD) SEEDS=$(SEEDS) LAB_SLOW_WRITE_MS=$(SLOW_WRITE_MS) scripts/seed-matrix.sh

tsan-matrix: deps
	$(MAKE) build BUILD=build-tsan CMAKE_ARGS="$(TSAN_ARGS)"
	$(TSAN_ENV) BUILD=build-tsan SEEDS=$(SEEDS) scripts/seed-matrix.sh

lesson-diffs:
	scripts/lesson-diffs.sh write

# The grader against realistic mistakes in stage 6 (grader/mutants): every one must be killed and named.
MUTANT_SEEDS ?= 10
mutants: build
	cmake --build $(BUILD) --target mutants -j$(JOBS)
	$(BUILD)/grader/grader mutants --bin-dir $(BUILD)/stages --mutants grader/mutants --seeds $(MUTANT_SEEDS)

# The grader against the mistakes nobody wrote (scripts/mutation_score.py, docs/teach/grader-checks-itself.md "Mutation score: the mistakes nobody wrote"): a sample
# of the operator mutants of stages 2-6's lesson code, each built and graded at its own stage; the score, every
# survivor, $(BUILD)/mutation-score/results.json. No new mutant starts after MUTATION_MINUTES.
MUTATION_SAMPLE  ?= 100
MUTATION_MINUTES ?= 20
mutation-score: build
	python3 scripts/mutation_score.py --build $(BUILD) --sample $(MUTATION_SAMPLE) \
	  --budget-minutes $(MUTATION_MINUTES) --jobs $(JOBS)

# Crash-and-retry rounds on one stage 6 server and database file, each checked in full (docs/reference/plumbing.md "Plumbing",
# Reliability: soak). Without SEED the grader draws one and prints it.
ROUNDS ?= 200
SEED   ?=
soak: build
	$(BUILD)/grader/grader soak --rounds $(ROUNDS) $(if $(SEED),--seed $(SEED)) --bin-dir $(BUILD)/stages

# Stage 6 under bounded loopback load (docs/reference/plumbing.md "Plumbing", Reliability, "Load"): no errors but the expected
# 409s, every connection answered, slow clients do not stop it, nothing lost, memory flat. Not part of
# `make test`: it takes about 40 s of full load. SECONDS_PER_PHASE=S lengthens each of its three phases.
SECONDS_PER_PHASE ?= 8
load: build
	$(BUILD)/grader/grader load --bin-dir $(BUILD)/stages --seconds-per-phase $(SECONDS_PER_PHASE)

gradescope: build
	scripts/gradescope/package.sh $(BUILD)/gradescope/autograder.zip

# libFuzzer targets (clang, ASan+UBSan, build-fuzz) for the body validator, the canonicalizer, the key parser
# and the admin inputs, then the HTTP mutation fuzzer against a stage 6 server of $(BUILD). SECONDS in all,
# shared equally (scripts/fuzz.sh). docs/reference/plumbing.md "Reliability", Fuzzing. Not part of `make test`, which only replays
# the committed corpora (fuzz/corpus/) through the same checks.
SECONDS    ?= 60
FUZZ_BUILD ?= build-fuzz
FUZZ_CONFIGURE = CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLAB_FUZZ=ON \
                 -DLAB_WERROR=$(WERROR)
fuzz: deps
	@scripts/ensure-deps.sh fuzz
	@$(BUILD_ENV) scripts/build.sh "stage 6 and the HTTP mutator" stage6_scope_ttl http_mutator
	@test -f $(FUZZ_BUILD)/CMakeCache.txt || $(FUZZ_CONFIGURE)
	cmake --build $(FUZZ_BUILD) -j$(JOBS) --target fuzz_canonical_json fuzz_idempotency_key fuzz_money_request \
	  fuzz_admin_input
	@scripts/fuzz.sh $(SECONDS) $(FUZZ_BUILD) $(BUILD)

# Performance (docs/reference/plumbing.md "Performance"): the machine's limits measured in the same run (engine_bench: SQLite
# alone; trivial_post_server: HTTP alone), then each stage under wrk (Debian's wrk, bench/transfers.lua), the
# default day, the grader matrix; one table, goals marked met or NOT met, the figures in
# $(BUILD)/bench/latest.json. Not part of `make test`: figures are reported, never asserted.
BENCH_ARGS ?=
bench: build
	@scripts/ensure-deps.sh bench postgres
	python3 scripts/bench.py --build $(BUILD) $(BENCH_ARGS)

# A day of DAY_INTENTS intents replayed on stage 6 as fast as it goes: sends per second and the peak memory
# of server and grader ($(BUILD)/bench/latest-day.json). The default day's shape sends 1.05 times per intent,
# so 952400 intents are a million sends: 395 s on two cores at synchronous=NORMAL, before --sync; at the
# stages' default (--sync full) the default day replays about 40% slower, so count on 10 minutes.
DAY_INTENTS ?= 952400
bench-day: build
	python3 scripts/bench.py --build $(BUILD) --day-intents $(DAY_INTENTS)

# Stage 6 on PostgreSQL, three instances on one database (docs/reference/beyond-one-process.md "Beyond one process"): a throwaway cluster
# (scripts/pg-cluster.sh), the grader round-robin over the three, a crash and a pause across instances, the
# day, the books; about a minute. Everything started is stopped at the end, also after a failure; the logs
# stay in $(BUILD)/multi/.
multi: build
	@scripts/ensure-deps.sh postgres
	python3 scripts/multi.py --bin-dir $(BUILD)

# grader class on a made-up class of 30 (docs/teach/grader-for-courses.md "Grading a class"): every reference stage and wrong turn,
# the mutants `make build` builds, broken and hostile servers; the wall time and the load. CLASS_STAGE (6);
# CLASS_ARGS="--jobs N" or "--fresh" (a second run without it skips every learner graded before).
CLASS_STAGE ?= 6
CLASS_ARGS  ?=
class-demo: build
	@BUILD=$(BUILD) CLASS_STAGE=$(CLASS_STAGE) CLASS_ARGS="$(CLASS_ARGS)" scripts/class-demo.sh

# The class of 30 checked, not only timed (tests/grader/check_class.py class30): each learner's row equals
# grading them alone, and a second run grades nobody again. About 12 minutes on 2 cores: not in make test,
# which checks a class of 8 the same way.
class-check: build
	python3 tests/grader/check_class.py class30 $(BUILD)/grader/grader $(BUILD)/stages $(BUILD)/class-check

# The first minutes of each user, measured on fresh clones of HEAD with an empty compiler cache (docs/learn/getting-started.md
# "Getting started", first contact): make demo to the day's table, a starter copy's first make grade STAGE=1,
# make test from a fresh clone and again after its build. Figures printed, never asserted.
first-contact: deps
	@scripts/ensure-deps.sh browser postgres bubblewrap
	@scripts/first-contact.sh

clean:
	rm -rf build build-asan build-tsan build-fuzz
