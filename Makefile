# The front door. `make demo` and `make test` are the two promised commands (README.md); both install
# missing Debian packages first (scripts/ensure-deps.sh) and rebuild only what changed.
BUILD      ?= build
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: all deps build test demo asan tsan lesson-diffs gradescope clean help

all: build

help:
	@echo "make demo          build, then show stage 1 duplicating a retried transfer"
	@echo "make test          build, then run every test (unit, end-to-end, grader matrix)"
	@echo "make asan | tsan   the tests under AddressSanitizer+UBSan | ThreadSanitizer (build-asan, build-tsan)"
	@echo "make lesson-diffs  regenerate stages/*/lesson.diff"
	@echo "make gradescope    build/gradescope/autograder.zip (edit scripts/gradescope/config.env first)"
	@echo "make clean         remove build folders"

deps:
	@scripts/ensure-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

demo: build
	@BUILD=$(BUILD) scripts/demo.sh

asan:
	$(MAKE) test BUILD=build-asan CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug -DLAB_SANITIZE=address"

tsan:
	$(MAKE) test BUILD=build-tsan CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug -DLAB_SANITIZE=thread"

lesson-diffs:
	scripts/lesson-diffs.sh write

gradescope: build
	scripts/gradescope/package.sh $(BUILD)/gradescope/autograder.zip

clean:
	rm -rf build build-asan build-tsan
