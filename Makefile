# Capstan: `make run` starts a server on the embedded store; `make test` runs every test.
BUILD_DIR ?= build
DATA_DIR ?= ./capstan-data
CMAKE_FLAGS ?= -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
CTEST_FLAGS ?= --output-on-failure -j2

.PHONY: all deps configure build run test unit e2e conformance bench clean

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

# controller-runtime's envtest with Capstan as its kube-apiserver (tests/envtest/, a Go module; needs Go):
# once on the etcd envtest starts (Debian's etcd), once on the embedded store with the etcd stand-in;
# then Helm 4 (built from the Go module proxy) installs, upgrades, rolls back and uninstalls a chart.
ENVTEST_ASSETS ?= $(BUILD_DIR)/envtest-assets
conformance: deps build
	@command -v go >/dev/null 2>&1 || { echo "make conformance needs Go (go on PATH)"; exit 1; }
	scripts/envtest-assets.sh --etcd $(ENVTEST_ASSETS)/etcd $(BUILD_DIR)/capstan
	scripts/envtest-assets.sh --embedded $(ENVTEST_ASSETS)/embedded $(BUILD_DIR)/capstan
	cd tests/envtest && KUBEBUILDER_ASSETS=$(abspath $(ENVTEST_ASSETS))/etcd go test -count=1 -v ./...
	cd tests/envtest && KUBEBUILDER_ASSETS=$(abspath $(ENVTEST_ASSETS))/embedded go test -count=1 -v ./...
	tests/helm/run.sh $(BUILD_DIR)

bench: build
	@echo "benchmarks live under bench/; see bench/README.md"

clean:
	rm -rf $(BUILD_DIR)
