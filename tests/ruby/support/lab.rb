# frozen_string_literal: true

# The fault lab (lab/README.md) from Ruby: start `retry-lab` on a free loopback port, script its
# faults, read its request log, stop it. And a small LLM client over Net::HTTP that raises what
# RubyLLM raises: an HTTP error status becomes a RubyLLM-shaped error (RubyLLM's
# ErrorMiddleware mapping, the response's status, headers and body attached, the provider's
# message), while socket failures (Net::ReadTimeout, Errno::ECONNRESET, EOFError) come up from
# Net::HTTP as they are. Used by tests/ruby/lab_test.rb and scripts/demo-ruby.rb.

require "json"
require "net/http"
require "timeout"

module RetryLab
  ROOT = File.expand_path("../../..", __dir__)

  class Unavailable < StandardError; end

  # The lab's binary: RETRY_LAB_BIN, else target/debug/retry-lab (`cargo build -p retry-lab`).
  def self.binary
    ENV.fetch("RETRY_LAB_BIN") { File.join(ENV.fetch("CARGO_TARGET_DIR", File.join(ROOT, "target")), "debug", "retry-lab") }
  end

  # A running lab, started with --exit-on-stdin-close: it exits when #stop closes its stdin,
  # or when this process dies, however it dies.
  class Server
    attr_reader :host, :port

    # Starts the lab and waits (at most `timeout` s) for its LISTENING line.
    def self.start(timeout: 10)
      bin = RetryLab.binary
      raise Unavailable, "#{bin} is missing: run `cargo build -p retry-lab`" unless File.executable?(bin)

      new(bin, timeout)
    end

    def initialize(bin, timeout)
      @io = IO.popen([bin, "--port", "0", "--exit-on-stdin-close", "--quiet"], "r+", err: File::NULL)
      line = Timeout.timeout(timeout) { @io.gets }
      raise Unavailable, "retry-lab printed #{line.inspect} instead of LISTENING" unless line&.start_with?("LISTENING ")

      @host, port = line.split[1].split(":")
      @port = Integer(port)
    rescue StandardError
      stop
      raise
    end

    def url(path = "")
      "http://#{@host}:#{@port}#{path}"
    end

    # Loads a fault script (a Hash, as lab/README.md describes); restarts counters and the log.
    def script(script)
      control(Net::HTTP::Post.new("/_lab/script").tap do |r|
        r.body = JSON.generate(script)
        r["content-type"] = "application/json"
      end)
    end

    # Every model request since the script was loaded (Hashes with String keys).
    def log
      JSON.parse(control(Net::HTTP::Get.new("/_lab/log")))
    end

    # Closes the lab's stdin (it exits by itself) and reaps it; kills it if it lingers.
    def stop
      return unless @io

      io = @io
      @io = nil
      pid = io.pid
      begin
        io.close_write
        Timeout.timeout(5) { Process.wait(pid) }
      rescue Timeout::Error
        Process.kill("KILL", pid)
        Process.wait(pid)
      rescue IOError, Errno::ECHILD
        nil
      ensure
        io.close unless io.closed?
      end
    end

    private

    def control(request)
      http = Net::HTTP.new(@host, @port, nil) # nil: never through a proxy, even for loopback
      http.open_timeout = http.read_timeout = 5
      response = http.request(request)
      raise "retry-lab #{request.path}: #{response.code} #{response.body}" unless response.is_a?(Net::HTTPSuccess)

      response.body
    end
  end

  # The LLM call of an agent: one POST per call, a fresh connection each time (Net::HTTP never
  # retries a POST by itself, so every call is one attempt in the lab's log).
  class Client
    attr_reader :requests

    # @param provider [:anthropic, :openai] which API shape to speak
    def initialize(server, provider: :anthropic, api_key: "sk-ant-api03-test-key-0000", read_timeout: 5, model: nil)
      @server = server
      @provider = provider
      @api_key = api_key
      @read_timeout = read_timeout
      @model = model || (provider == :anthropic ? "claude-sonnet-4" : "gpt-4o")
      @requests = []
    end

    # Sends the conversation; returns the assistant's text, or raises.
    # @param messages [Array] RubyLLM-like messages or Hashes
    # @param fault [Hash, String, nil] an x-lab-fault for this request only
    def complete(messages, fault: nil)
      path = @provider == :anthropic ? "/v1/messages" : "/v1/chat/completions"
      request = Net::HTTP::Post.new(path)
      request["content-type"] = "application/json"
      if @provider == :anthropic
        request["x-api-key"] = @api_key
        request["anthropic-version"] = "2023-06-01"
      else
        request["authorization"] = "Bearer #{@api_key}"
      end
      request["x-lab-fault"] = fault.is_a?(Hash) ? JSON.generate(fault) : fault if fault
      request.body = JSON.generate(model: @model, max_tokens: 256, messages: messages.map { |m| wire(m) })
      @requests << JSON.parse(request.body)

      http = Net::HTTP.new(@server.host, @server.port, nil)
      http.open_timeout = 2
      http.read_timeout = @read_timeout
      response = http.request(request)
      raise RetryLab.error_for(response, @provider) unless response.is_a?(Net::HTTPSuccess)

      body = JSON.parse(response.body)
      @provider == :anthropic ? body.dig("content", 0, "text") : body.dig("choices", 0, "message", "content")
    end

    private

    def wire(message)
      return message if message.is_a?(Hash)

      h = { role: message.role.to_s, content: message.content }
      h[:tool_calls] = message.tool_calls.values.map { |c| { id: c.id, name: c.name, arguments: c.arguments } } if message.tool_calls
      h[:tool_call_id] = message.tool_call_id if message.tool_call_id
      h
    end
  end

  # What RubyLLM raises for an HTTP error response: its ErrorMiddleware's status -> class
  # mapping, the provider's message from the body, and the response attached as a
  # Faraday::Response (status, parsed JSON body or the raw text, headers).
  def self.error_for(response, _provider)
    status = response.code.to_i
    raw = response.body.to_s
    body = begin
      JSON.parse(raw)
    rescue JSON::ParserError
      raw
    end
    message = (body.is_a?(Hash) && body.dig("error", "message")) || raw[0, 200]
    headers = response.each_header.to_h
    faraday = RubyLLMDouble.response(status: status, body: body, headers: headers)
    klass = case status
            when 400 then RubyLLM::BadRequestError
            when 401 then RubyLLM::UnauthorizedError
            when 402 then RubyLLM::PaymentRequiredError
            when 403 then RubyLLM::ForbiddenError
            when 429 then RubyLLM::RateLimitError
            when 500 then RubyLLM::ServerError
            when 502..503 then RubyLLM::ServiceUnavailableError
            when 529 then RubyLLM::OverloadedError
            else RubyLLM::Error
            end
    klass.new(faraday, message)
  end
end

module RetryLab
  # Mixed into a SwarmSDK::Agent::Chat double: an agent turn whose LLM call is a real HTTP
  # request to the lab, through the chat's call_llm_with_retry (ChatRetry once installed).
  module AgentTurn
    attr_accessor :client

    # Adds the user's text, calls the model, adds and returns its reply (or the error message
    # ChatRetry returns for a failure it does not retry).
    def ask(text, fault: nil)
      add_message(RubyLLM::Message.new(role: :user, content: text))
      reply = call_llm_with_retry do
        RubyLLM::Message.new(role: :assistant, content: client.complete(@llm_chat.messages, fault: fault), model_id: model_id)
      end
      add_message(reply)
      reply
    end
  end
end
