# frozen_string_literal: true

# Loads the native extension, in this order:
#
# 1. lib/retry_core/<ruby minor>/retry_core.so: a precompiled gem (x86_64-linux, ...) carries
#    one library per Ruby minor, since the extension links against that minor's ABI.
# 2. lib/retry_core/retry_core.so: the source gem compiled at install time by RubyGems' Cargo
#    builder (the layouts after RubyGems 3.3 nest it by the ext directory).
# 3. lib/retry_core.so: RubyGems 3.3's layout, and `rake compile` for development.
begin
  require "retry_core/#{RUBY_VERSION[/\A\d+\.\d+/]}/retry_core"
rescue LoadError => e
  raise unless e.path.nil? || e.path.end_with?("/retry_core")

  begin
    require "retry_core/retry_core"
  rescue LoadError => e
    raise unless e.path.nil? || e.path == "retry_core/retry_core"

    require "retry_core.so"
  end
end

module RetryCore
  # The core builds its tables on first use. A table another thread is building when the
  # process forks would never finish in the child, so every fork first lets the core finish them
  # all (milliseconds once; nothing on later forks). +Process._fork+ (Ruby 3.1+) is the hook
  # every fork goes through.
  module ForkWarm
    def _fork
      RetryCore._warm
      super
    end
  end

  Process.singleton_class.prepend(ForkWarm)
end
