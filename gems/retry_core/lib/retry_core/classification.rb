# frozen_string_literal: true

module RetryCore
  # What {RetryCore.classify} says of a failure (CONTRACT §2): +category+ (a Symbol such as
  # +:rate_limited+), +transient?+, +retry_after+ (seconds or nil), +error_type+ (a short name
  # such as "RateLimit"), +status+, and the +evidence+ that decided.
  class Classification
    # @return [Hash]
    def to_h
      { category: category, transient: transient?, retry_after: retry_after,
        retry_after_source: retry_after_source, error_type: error_type, status: status,
        evidence: evidence, api_error: api_error? }
    end

    def ==(other)
      other.is_a?(Classification) && to_h == other.to_h
    end

    def inspect
      "#<RetryCore::Classification #{category} transient=#{transient?} status=#{status.inspect} " \
        "retry_after=#{retry_after.inspect} error_type=#{error_type.inspect}>"
    end
  end
end
