# The project's verbs. `make demo` and `make test` install what they need on a fresh Debian
# machine (as root), or print the exact command to run.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: demo test test-rust test-python test-ruby lint bench setup clean

setup:
	@scripts/setup.sh

## The main job: each scripted fault through the original retry loops and through retry-core, side
## by side; then a local fault-injecting endpoint, and calls through retry-core that survive it.
demo: setup
	@scripts/demo.sh

## Every suite: Rust (vectors, drivers, properties, fleets, the example), Python, Ruby, and a
## bounded fuzz smoke run of every target; then the release artifacts, built and installed as a
## user gets them (`make test-dist`).
test: setup test-rust test-python test-ruby fuzz-smoke test-dist

test-rust:
	# The library alone, no feature on: a workspace build unifies features and would hide a
	# module that needs one.
	$(CARGO) build -p llm-retry-core
	python3 scripts/module_cycles.py core/src python-ext/src ruby-ext/src
	$(CARGO) test --workspace
	$(CARGO) test -p llm-retry-core --all-features
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p llm-retry-core --all-targets --all-features -- -D warnings

test-python:
	scripts/python.sh

test-ruby:
	scripts/ruby.sh

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p llm-retry-core --all-targets --all-features -- -D warnings

## Criterion benchmarks of the engine (classification, pruning) plus the bindings' scripts.
bench:
	$(CARGO) bench -p llm-retry-core --bench engine

## Every front door's success-path overhead beside backoff's @on_exception, in one run.
.PHONY: bench-doors
bench-doors:
	@bench/doors.sh

## The same doors' instructions a call over a plain call, counted by callgrind (deterministic).
.PHONY: bench-doors-instr
bench-doors-instr:
	@bench/doors_instr.sh

## The measured report: bench/results/REPORT.md and its charts (simulator, live lab, criterion, bindings).
.PHONY: bench-report
bench-report:
	@bench/run.sh

## Every fuzz target for 5 s from its seed corpus, on stable (installs cargo-fuzz if missing;
## core/fuzz/README.md says how to run them for longer).
.PHONY: fuzz-smoke
fuzz-smoke:
	@core/fuzz/smoke.sh

## Every artifact a user installs, at the one version of Cargo.toml, into dist/: the manylinux
## abi3 wheel, the sdist, the precompiled x86_64-linux gem, the source gem (crates vendored) and
## the crate; then scripts/dist-check.sh. Release builds in target/dist, incremental.
.PHONY: dist test-dist release-lint
dist: setup
	@scripts/dist.sh

## dist/'s artifacts installed into clean environments (no Rust on PATH; the source gem with cargo
## but offline) and used: classify, a retry through the fault lab, a pruned history.
test-dist: dist
	@scripts/dist-test.sh

## The release workflow (actionlint) and the crate as crates.io would take it (needs crates.io).
release-lint:
	@scripts/dist.sh --tools-only
	tmp/dist-venv/bin/actionlint .github/workflows/release.yml
	$(CARGO) publish --dry-run --locked --allow-dirty -p llm-retry-core

## The Forgeflare example built as a crate of its own outside the workspace (the core by path,
## crates.io crates, offline): proof that it needs no unpublished crate. Slow (a cold build).
.PHONY: example-outside
example-outside:
	@scripts/example-outside.sh

clean:
	$(CARGO) clean
	rm -rf .venv tmp dist

## Recovery after 1-5 s outages (20 agents, with and without the default `Fleet`, and the old
## 5 s breaker) and the 1 000-agent amplification, on virtual time: the figures in README's
## "Fleets" section.
.PHONY: fleet-tuning
fleet-tuning:
	$(CARGO) run --release -q -p retry-sim -- fleet-tuning

## The same, plus 20 agents against the real retry-lab over loopback (about 70 s).
.PHONY: fleet-tuning-live
fleet-tuning-live:
	$(CARGO) run --release -q -p retry-sim -- fleet-tuning --live

## Issue 23's admission benchmark (not part of `make test`; about 2 minutes after the build):
## 4 processes x 50 agents per mode against the lab's quotas, five modes side by side, sharing
## one loopback redis-server (apt-get install -y redis-server). Writes bench/results/admission.csv,
## admission.svg, admission.md and its section of REPORT.md.
.PHONY: bench-admission
bench-admission:
	$(CARGO) build --release -q -p retry-sim
	target/release/retry-sim admission --out bench/results --command "make bench-admission"

## Issue 24's fleet bounds, measured (release build; run on a quiet machine, not in `make test`):
## the slowest call during metrics() snapshots of 300 K keys (bound: 10 ms) and the RSS of 1 M keys.
.PHONY: fleet-bounds
fleet-bounds:
	$(CARGO) test --release -p llm-retry-core --all-features --test fleet -- --ignored --nocapture --test-threads 1
