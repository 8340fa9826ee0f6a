// SPDX-License-Identifier: MIT
//
// fastfloat.cc - the only C++ in libhcbformats: thin C entry points over
// Debian's dragonbox (libdragonbox-dev) and fast_float (libfast-float-dev),
// both header-only.  Built without exceptions or RTTI; nothing here
// allocates.
#include <cerrno>
#include <cstring>
#include <system_error>

#include <dragonbox/dragonbox.h>
#include <fast_float/fast_float.h>

#include "fastfloat.h"

namespace {

// The policies spelled out, though they are dragonbox's defaults: they are
// what makes its digits Dragon4's (digits.c says why).  An even mantissa's
// interval includes its ends (IEEE round-half-even reads them back to it);
// of two equally near shortest candidates the even one wins.
template <class Float> auto shortest(Float v)
{
	namespace p = jkj::dragonbox::policy;

	return jkj::dragonbox::to_decimal(v, p::sign::ignore, p::trailing_zero::remove,
					  p::decimal_to_binary_rounding::nearest_to_even,
					  p::binary_to_decimal_rounding::to_even, p::cache::full);
}

// flatten: dragonbox inlined into the loop, whose iterations then overlap
template <class Float> [[gnu::flatten]] void shortest_n(const void *v, size_t n,
							 struct hcb_shortest *out)
{
	const char *p = static_cast<const char *>(v);

	for (size_t i = 0; i < n; i++) {
		Float x;

		std::memcpy(&x, p + i * sizeof(x), sizeof(x));
		if (x == 0 || !(x - x == 0)) {   // zero, inf, nan
			out[i] = { 0, 0 };
			continue;
		}
		auto d = shortest(x);

		out[i] = { d.significand, d.exponent };
	}
}

template <class Float> int parse(const char *text, size_t len, Float *out)
{
	Float v;
	auto r = fast_float::from_chars(text, text + len, v, fast_float::chars_format::general);

	// fast_float also reads "nan", "inf" and a leading '+' or '.', which
	// JSON does not: callers pass spans their JSON parser accepted, and
	// text must hold a digit before anything else
	if (r.ec != std::errc() || r.ptr != text + len || len == 0 ||
	    !(text[0] == '-' || (text[0] >= '0' && text[0] <= '9')))
		return -EINVAL;
	*out = v;
	return 0;
}

} // namespace

extern "C" struct hcb_shortest hcb_shortest_f64(double v)
{
	auto d = shortest(v);

	return { d.significand, d.exponent };
}

extern "C" struct hcb_shortest hcb_shortest_f32(float v)
{
	auto d = shortest(v);

	return { d.significand, d.exponent };
}

extern "C" void hcb_shortest_f32_n(const void *v, size_t n, struct hcb_shortest *out)
{
	shortest_n<float>(v, n, out);
}

extern "C" void hcb_shortest_f64_n(const void *v, size_t n, struct hcb_shortest *out)
{
	shortest_n<double>(v, n, out);
}

extern "C" int hcb_parse_f64(const char *text, size_t len, double *out)
{
	return parse(text, len, out);
}

extern "C" int hcb_parse_f32(const char *text, size_t len, float *out)
{
	return parse(text, len, out);
}
