#pragma once
// Where a run's prices come from, as the results file records it (`pricing{...}`).

#include "pricing/price_table.h"
#include "src/core/result.h"

namespace pperf {

/// Copies `table`'s provenance (name, source, retrieved, published, sha256, region, currency) into
/// `report`'s pricing fields; the market and discount are the caller's (the config's or the inputs').
inline void record_price_table(RunReport& report, const PriceTable& table) {
  report.pricing_table = table.name;
  report.pricing_source = table.source;
  report.pricing_retrieved = table.retrieved;
  report.pricing_published = table.published;
  report.pricing_sha256 = table.sha256;
  report.pricing_region = table.region;
  report.pricing_currency = table.currency;
}

}  // namespace pperf
