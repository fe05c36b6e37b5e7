# The core's unsafe code under Miri, the interpreter that reports undefined
# behaviour (out-of-bounds or misaligned reads, use of uninitialised
# memory, aliasing): the unit tests that reach each unsafe block, one at a
# time, from the nightly test-msrv uses (its miri component installed by
# rustup when missing). Not part of `make test`: Miri runs these tests a
# thousand times slower, about ten minutes in all. Miri sees no AVX2 (the
# run-time detection says no), so it checks the scalar and SSE2 paths;
# FUZZ_SANITIZER=address fuzz/run.sh simd runs the AVX2 ones under
# AddressSanitizer.
#
#   make miri

MIRI_TESTS := \
  decode::columns::tests::bitmaps \
  decode::columns::tests::texts_of_every_short_length \
  decode::arrow::tests::dictionary_threshold \
  decode::decoder::fast::tests::the_fast_path_matches_the_general_one \
  decode::decoder::tests::rows_reach_the_sink_in_order \
  decode::decoder::tests::data_keyed_by_row_number \
  decode::scanner::simd::tests::every_classifier_agrees_with_the_scalar_one \
  decode::scanner::tests::special_bytes_are_found_at_every_offset \
  decode::scanner::tests::string_ends_across_chunks \
  decode::from_arrow::tests::round_trip_of_a_decoded_batch \
  decode::regular_rows::rows_read_again_from_the_last_regular_place_are_the_rest \
  decode::batch::tests::rows_read_back

.PHONY: miri
miri:
	rustup component add miri rust-src --toolchain $(NIGHTLY) >/dev/null
	CARGO_TARGET_DIR=$(ROOT)/target/miri cargo +$(NIGHTLY) miri setup >/dev/null
	@for t in $(MIRI_TESTS); do \
	  echo "miri: $$t"; \
	  CARGO_TARGET_DIR=$(ROOT)/target/miri cargo +$(NIGHTLY) miri test --quiet -p erpdata \
	    --features arrow,parallel --lib -- --exact $$t || exit 1; \
	done
