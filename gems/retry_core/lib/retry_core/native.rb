# frozen_string_literal: true

# Loads the native extension. RubyGems' Cargo builder puts it at lib/retry_core.so (RubyGems
# 3.3) or lib/retry_core/retry_core.so (later layouts, which nest it by the ext directory);
# `rake compile` puts it at lib/retry_core.so for development.
begin
  require "retry_core/retry_core"
rescue LoadError => e
  raise unless e.path.nil? || e.path == "retry_core/retry_core"

  require "retry_core.so"
end
