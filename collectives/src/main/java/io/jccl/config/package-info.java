/**
 * Reading {@code JCCL_*} options and launcher variables: {@link io.jccl.config.OptionReader} gives typed values with
 * defaults and ranges, and every bad value fails as one {@link io.jccl.config.InvalidOptionException} worded
 * {@code KEY='value' is invalid: it must be ...}, so that a user sees the same kind of message whichever part of
 * JCCL read the option.
 */
package io.jccl.config;
