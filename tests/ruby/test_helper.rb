# frozen_string_literal: true

# Loads retry_core either from the source tree (gems/retry_core/lib, after `rake compile`) or,
# with RETRY_CORE_FROM=gem, from the installed gem only (scripts/ruby.sh sets GEM_HOME/GEM_PATH).

ROOT = File.expand_path("../..", __dir__)
VECTORS_DIR = File.join(ROOT, "tests", "vectors")

if ENV["RETRY_CORE_FROM"] == "gem"
  gem "retry_core"
else
  $LOAD_PATH.unshift(File.join(ROOT, "gems", "retry_core", "lib"))
end
require "retry_core"

native = $LOADED_FEATURES.grep(%r{retry_core(/retry_core)?\.#{RbConfig::CONFIG["DLEXT"]}\z}).first
if ENV["RETRY_CORE_FROM"] == "gem" && native&.start_with?(File.join(ROOT, "gems"))
  abort "RETRY_CORE_FROM=gem but the extension came from the source tree: #{native}"
end
warn "retry_core #{RetryCore::VERSION}: #{native}" if ENV["RETRY_CORE_VERBOSE"]

require "json"
require "logger"
require "time"
require "timeout"
require "minitest/autorun"

# The front doors log each retry at WARN through RetryCore.logger ($stderr by default): kept
# quiet here; tests that check the lines give their own logger.
RetryCore.logger = Logger.new(File::NULL) unless ENV["RETRY_CORE_LOG"]

require_relative "support/ruby_llm_double"
require_relative "support/swarm_sdk_double"

# Under RETRY_CORE_GC_STRESS=1 (rake test:stress) the binding-heavy tests run with GC.stress on:
# every allocation then runs a full GC, which finds any Ruby object the Rust side reads after
# it could have been collected. Whole tests (GCStress included in a test class) or just the
# binding calls (TestHelpers#native) are stressed, and vector files are sampled, so that the
# run stays within a few minutes.
module GCStress
  def self.on?
    ENV["RETRY_CORE_GC_STRESS"] == "1"
  end

  def setup
    super
    GC.stress = true if GCStress.on?
  end

  def teardown
    GC.stress = false if GCStress.on?
    super
  end
end

module TestHelpers
  FLOAT_TOLERANCE = 1e-9

  # Runs the block (a call into the binding) under GC.stress when stressing.
  def native
    return yield unless GCStress.on?

    begin
      GC.stress = true
      yield
    ensure
      GC.stress = false
    end
  end

  # An on_event for tests of the contract's and the fleet's events: the run's own events
  # (waits, fallbacks, stacked layers; issue 13) are left out, as SwarmSDK's LogStream leaves
  # them out. tests/ruby/runs_test.rb checks those.
  def contract_events(into)
    ->(e) { into << e unless RetryCore::SwarmSDK::RUN_ONLY_EVENTS.include?(e[:type]) }
  end

  def load_vectors(name)
    JSON.parse(File.read(File.join(VECTORS_DIR, name)))
  end

  # All cases, or a sample of them under GC.stress.
  def sample(cases)
    return cases unless GCStress.on?

    limit = Integer(ENV.fetch("RETRY_CORE_STRESS_CASES", "6"))
    step = [cases.size / limit, 1].max
    cases.each_slice(step).map(&:first).first(limit)
  end

  # Deep equality with a tolerance for floats; Symbols compare as Strings.
  def same?(expected, actual)
    case expected
    when Hash
      actual.is_a?(Hash) && expected.size == actual.size &&
        expected.all? { |k, v| actual.key?(k.to_s) || actual.key?(k.to_sym) ? same?(v, actual.key?(k.to_s) ? actual[k.to_s] : actual[k.to_sym]) : false }
    when Array
      actual.is_a?(Array) && expected.size == actual.size && expected.zip(actual).all? { |e, a| same?(e, a) }
    when Float, Integer
      actual.is_a?(Numeric) && (expected - actual).abs <= FLOAT_TOLERANCE
    when Symbol, String
      (actual.is_a?(String) || actual.is_a?(Symbol)) && expected.to_s == actual.to_s
    else
      expected == actual
    end
  end

  def assert_same_data(expected, actual, message = nil)
    assert same?(expected, actual), message || "expected #{expected.inspect}\n     got #{actual.inspect}"
  end

  # Replaces Kernel#sleep on one object (a chat, or RetryCore itself) with a recorder. With
  # `real: true` it also sleeps (a fleet's clock is the wall clock: a wait that does not pass
  # would be asked for again) and records `[Thread.current[:name], seconds]`.
  def record_sleeps(object, real: false)
    sleeps = []
    lock = Mutex.new
    if real
      object.define_singleton_method(:sleep) do |seconds|
        lock.synchronize { sleeps << [Thread.current[:name], seconds] }
        Kernel.sleep(seconds)
      end
    else
      object.define_singleton_method(:sleep) { |seconds| lock.synchronize { sleeps << seconds }; seconds.round }
    end
    sleeps
  ensure
    @stubbed_sleep ||= []
    @stubbed_sleep << object
  end

  def unstub_sleeps
    (@stubbed_sleep || []).each do |object|
      object.singleton_class.send(:remove_method, :sleep) if object.singleton_class.method_defined?(:sleep, false) ||
                                                             object.singleton_class.private_method_defined?(:sleep, false)
    end
    @stubbed_sleep = []
  end

  # SwarmSDK as an application has it: a fresh configuration, retry-core installed (its
  # install event is returned), LogStream events collected in @emitter, and with `sleeps:` the
  # engine's sleeps recorded instead of slept. `reset_globals` undoes it all.
  def install_swarm_sdk(sleeps: false)
    RetryCore::SwarmSDK.reset_configuration!
    event = RetryCore::SwarmSDK.install!
    @emitter = SwarmSDK::CollectingEmitter.new
    SwarmSDK::LogStream.emitter = @emitter
    record_sleeps(RetryCore) if sleeps
    event
  end

  # Undoes what a test changed globally: stubbed sleeps, the LogStream emitter and
  # RetryCore::SwarmSDK's configuration. Call from teardown.
  def reset_globals
    unstub_sleeps
    SwarmSDK::LogStream.emitter = nil
    RetryCore::SwarmSDK.reset_configuration!
  end

  # The block, or Timeout::Error after `seconds` (30 times longer under GC.stress).
  def bounded(seconds = 10, &block)
    Timeout.timeout(GCStress.on? ? seconds * 30 : seconds, &block)
  end
end

# Tests that run with SwarmSDK installed and the engine's sleeps recorded (install_swarm_sdk),
# undone after each test.
module SwarmSDKInstalled
  def setup
    super
    install_swarm_sdk(sleeps: true)
  end

  def teardown
    reset_globals
    super
  end
end

# The engine's Run (RetryCore::Run, core run.rs) one failure at a time, for tests that look at
# single decisions: each report answers the decision of the last failure (Run#decision) and
# +step+ holds the run's last step; a report after a wait resumes the run first, as the front
# doors do. +events+ collects every event of the run.
class RunMachine
  attr_reader :run, :step, :events

  def initialize(policy = :default, seed: nil, context_hook: false, fleet: nil, key: nil, swarm_names: false)
    config = JSON.generate({ seed: seed, context_hook: context_hook ? true : false })
    policy = RetryCore::Policy.coerce(policy)
    @run = if swarm_names
             RetryCore::Run._new(policy, config, fleet, fleet && [key], true)
           else
             RetryCore::Run.new(policy, config: config, fleet: fleet, keys: key)
           end
    @step = nil
    @events = []
  end

  def start(elapsed = 0.0)
    take { @run.start(elapsed) }
  end

  def succeeded(elapsed = 0.0)
    resume_if_waiting(elapsed)
    take { @run.succeeded(elapsed) }
  end

  def on_failure(failure, elapsed: 0.0)
    resume_if_waiting(elapsed)
    take { @run.failed(failure, elapsed) }
    @run.decision
  end

  def on_orphans_pruned(pruned, elapsed: 0.0)
    take { @run.pruned(pruned, elapsed) }
    @run.decision
  end

  def on_context_compacted(compacted, elapsed: 0.0)
    take { @run.compacted(compacted, elapsed) }
    @run.decision
  end

  def attempts
    @run.attempts
  end

  private

  def resume_if_waiting(elapsed)
    take { @run.resume(elapsed) } if @step && @step[0] == :wait
  end

  def take
    @step = yield
    @events.concat(@run.take_events)
    @step
  end
end
