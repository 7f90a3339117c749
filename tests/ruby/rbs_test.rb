# frozen_string_literal: true

require_relative "test_helper"

# sig/retry_core.rbs is valid RBS (every type resolves against Ruby's core signatures) and
# matches the live module: each method it declares exists, and each public method of the
# gem's classes is declared.
class RbsTest < Minitest::Test
  SIG_DIR = if ENV["RETRY_CORE_FROM"] == "gem"
              File.join(Gem.loaded_specs.fetch("retry_core").full_gem_path, "sig")
            else
              File.join(ROOT, "gems", "retry_core", "sig")
            end

  def setup
    super
    begin
      require "rbs"
    rescue LoadError
      skip "the rbs gem is not available"
    end
    loader = RBS::EnvironmentLoader.new
    loader.add(path: Pathname(SIG_DIR))
    @env = RBS::Environment.from_loader(loader).resolve_type_names
    @builder = RBS::DefinitionBuilder.new(env: @env)
  end

  def declared
    @env.class_decls.keys.select { |name| name.to_s.start_with?("::RetryCore") }
  end

  def test_signatures_resolve_and_match_the_live_module
    refute_empty declared
    missing = []
    declared.each do |type_name|
      const = Object.const_get(type_name.to_s.delete_prefix("::"))
      singleton = @builder.build_singleton(type_name)
      singleton.methods.each do |name, m|
        next unless m.defined_in == type_name
        next if name == :new && const.is_a?(Class) && m.defs.all? { |d| d.implemented_in != type_name }

        missing << "#{type_name}.#{name}" unless const.respond_to?(name, true)
      end
      instance = @builder.build_instance(type_name)
      instance.methods.each do |name, m|
        next unless m.defined_in == type_name

        missing << "#{type_name}##{name}" unless const.method_defined?(name) || const.private_method_defined?(name)
      end
    end
    assert_empty missing, "declared in sig/retry_core.rbs but not defined"
  end

  def test_public_methods_are_declared
    undeclared = []
    [RetryCore::Failure, RetryCore::Classification, RetryCore::Policy, RetryCore::Decision, RetryCore::Run,
     RetryCore::Fleet].each do |klass|
      type_name = RBS::TypeName.new(name: klass.name.split("::").last.to_sym, namespace: RBS::Namespace.parse("::RetryCore"))
      instance = @builder.build_instance(type_name)
      (klass.public_instance_methods(false) - %i[== eql? hash inspect]).each do |name|
        next if name.start_with?("_")

        undeclared << "#{klass}##{name}" unless instance.methods.key?(name)
      end
      singleton = @builder.build_singleton(type_name)
      klass.singleton_methods(false).each do |name|
        next if name.start_with?("_")

        undeclared << "#{klass}.#{name}" unless singleton.methods.key?(name)
      end
    end
    module_methods = RetryCore.singleton_methods(false).reject { |n| n.start_with?("_") }
    singleton = @builder.build_singleton(RBS::TypeName.new(name: :RetryCore, namespace: RBS::Namespace.root))
    undeclared.concat(module_methods.reject { |n| singleton.methods.key?(n) }.map { |n| "RetryCore.#{n}" })
    assert_empty undeclared, "public but missing from sig/retry_core.rbs"
  end
end
