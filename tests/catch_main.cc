// The one main() of each Catch2 test executable.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
