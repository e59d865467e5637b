# The front door. Meson and Ninja do the building; this file only makes sure
# the dependencies are installed and the build directory is configured.
#
#   make            build build/brokerd, build/loopd, build/bxctl, build/bxbridge
#   make check      build and run every test; the last line is "N passed, N failed"
#   make check-sanitize  the whole suite under ASan+UBSan (build-asan/), then TSan (build-tsan/)
#   make check-vm   as root: a Debian 12 VM under qemu, Boxmaker as its owner under systemd
#                   on cgroup v2, both runtimes (tests/vm/README.md)
#   make install    install under $(PREFIX) (default /usr/local), honouring DESTDIR
#   make bench      build and run the benchmarks under bench/
#   make fuzz       build and run each fuzzer for FUZZ_SECONDS (default 60)
#   make demo       build, then run the decision path on a temporary home with a fake model

PREFIX ?= /usr/local
BUILD ?= build
MESON_FLAGS ?= -Dwerror=true
FUZZ_SECONDS ?= 60

.PHONY: all deps check check-sanitize check-vm install bench fuzz demo clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)
	@for p in brokerd loopd bxctl bxbridge; do ln -sf src/$$p/$$p $(BUILD)/$$p; done
	@ln -sf tests/fake-llama/fake-llama $(BUILD)/fake-llama
	@ln -sf src/toml/toml-decoder $(BUILD)/toml-decoder

deps:
	@scripts/install-deps.sh --check 2>/dev/null || scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) --prefix=$(PREFIX) $(MESON_FLAGS)

check: all
	@scripts/run-tests.sh $(BUILD)

check-sanitize: | deps
	@scripts/check-sanitize.sh

check-vm:
	@scripts/install-deps.sh --check --vm 2>/dev/null || scripts/install-deps.sh --vm
	@tests/vm/run.sh

install: all
	meson configure $(BUILD) --prefix=$(PREFIX)
	DESTDIR=$(DESTDIR) meson install -C $(BUILD) --no-rebuild

bench: all
	@scripts/run-bench.sh $(BUILD)

fuzz:
	@scripts/install-deps.sh --check --fuzz 2>/dev/null || scripts/install-deps.sh --fuzz
	@scripts/run-fuzz.sh $(FUZZ_SECONDS)

demo: all
	@scripts/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD)
