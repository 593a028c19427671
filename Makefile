# Capstan: `make run` starts a server on the embedded store; `make test` runs every test.
BUILD_DIR ?= build
DATA_DIR ?= ./capstan-data
CMAKE_FLAGS ?= -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
CTEST_FLAGS ?= --output-on-failure -j2

.PHONY: all deps configure build run test unit e2e bench clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR)

run: deps build
	@scripts/run.sh $(BUILD_DIR)/capstan $(DATA_DIR)

test: deps build
	ctest --test-dir $(BUILD_DIR) $(CTEST_FLAGS)

unit: build
	ctest --test-dir $(BUILD_DIR) $(CTEST_FLAGS) -L unit

e2e: build
	ctest --test-dir $(BUILD_DIR) $(CTEST_FLAGS) -L e2e

bench: build
	@echo "benchmarks live under bench/; see bench/README.md"

clean:
	rm -rf $(BUILD_DIR)
