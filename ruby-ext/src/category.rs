//! `RetryCore::Classification` (core `category.rs`): what `classify` returns.

use magnus::{prelude::*, Error, RModule, Ruby, Symbol};
use retry_core::{Category, Classification};

/// A classification. Immutable from Ruby.
#[magnus::wrap(
    class = "RetryCore::Classification",
    free_immediately,
    size,
    frozen_shareable
)]
pub struct RbClassification(pub Classification);

impl RbClassification {
    fn category(ruby: &Ruby, rb_self: &Self) -> Symbol {
        ruby.to_symbol(rb_self.0.category.as_str())
    }

    fn transient(&self) -> bool {
        self.0.transient
    }

    fn retry_after(&self) -> Option<f64> {
        self.0.retry_after
    }

    fn retry_after_source(ruby: &Ruby, rb_self: &Self) -> Option<Symbol> {
        rb_self
            .0
            .retry_after_source
            .map(|s| ruby.to_symbol(s.as_str()))
    }

    fn error_type(&self) -> String {
        self.0.error_type.clone()
    }

    fn status(&self) -> Option<u16> {
        self.0.status
    }

    fn evidence(ruby: &Ruby, rb_self: &Self) -> Symbol {
        ruby.to_symbol(rb_self.0.evidence.as_str())
    }

    fn api_error(&self) -> bool {
        self.0.api_error
    }

    fn error_class(ruby: &Ruby, rb_self: &Self) -> Symbol {
        ruby.to_symbol(rb_self.0.transience().as_str())
    }
}

/// The category names, in contract order (`RetryCore::CATEGORIES`).
fn categories(ruby: &Ruby) -> magnus::RArray {
    ruby.ary_from_iter(Category::all().map(|c| ruby.to_symbol(c.as_str())))
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    let class = module.define_class("Classification", ruby.class_object())?;
    class.undef_default_alloc_func();
    class.define_method("category", magnus::method!(RbClassification::category, 0))?;
    class.define_method(
        "transient?",
        magnus::method!(RbClassification::transient, 0),
    )?;
    class.define_method(
        "retry_after",
        magnus::method!(RbClassification::retry_after, 0),
    )?;
    class.define_method(
        "retry_after_source",
        magnus::method!(RbClassification::retry_after_source, 0),
    )?;
    class.define_method(
        "error_type",
        magnus::method!(RbClassification::error_type, 0),
    )?;
    class.define_method("status", magnus::method!(RbClassification::status, 0))?;
    class.define_method("evidence", magnus::method!(RbClassification::evidence, 0))?;
    class.define_method(
        "api_error?",
        magnus::method!(RbClassification::api_error, 0),
    )?;
    class.define_method(
        "error_class",
        magnus::method!(RbClassification::error_class, 0),
    )?;
    module.const_set("CATEGORIES", categories(ruby))?;
    Ok(())
}
