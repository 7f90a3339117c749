# The project's verbs. `make demo` and `make test` install what they need on a fresh Debian
# machine (as root), or print the exact command to run.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: demo test test-rust test-python test-ruby lint bench setup clean

setup:
	@scripts/setup.sh

## The main job: a local fault-injecting endpoint, and calls through retry-core that survive it.
demo: setup
	@scripts/demo.sh

## Every suite: Rust (vectors, drivers, properties, fleets, the example), Python, Ruby, and a
## bounded fuzz smoke run of every target.
test: setup test-rust test-python test-ruby fuzz-smoke

test-rust:
	$(CARGO) test --workspace
	$(CARGO) test -p retry-core --all-features
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p retry-core --all-targets --all-features -- -D warnings

test-python:
	scripts/python.sh

test-ruby:
	scripts/ruby.sh

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p retry-core --all-targets --all-features -- -D warnings

## Criterion benchmarks of the engine (classification, pruning) plus the bindings' scripts.
bench:
	$(CARGO) bench -p retry-core --bench engine

## The measured report: bench/results/REPORT.md and its charts (simulator, live lab, criterion, bindings).
.PHONY: bench-report
bench-report:
	@bench/run.sh

## Every fuzz target for 5 s from its seed corpus, on stable (installs cargo-fuzz if missing;
## core/fuzz/README.md says how to run them for longer).
.PHONY: fuzz-smoke
fuzz-smoke:
	@core/fuzz/smoke.sh

clean:
	$(CARGO) clean
	rm -rf .venv tmp
