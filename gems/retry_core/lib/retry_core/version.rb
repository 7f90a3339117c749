# frozen_string_literal: true

module RetryCore
  VERSION = "0.1.0"
end
