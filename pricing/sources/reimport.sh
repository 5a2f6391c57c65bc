#!/usr/bin/env bash
# Re-imports the shipped price tables from their sources, through `pperf prices import`: usage
# reimport.sh PPERF OUT_DIR. tests/e2e/prices_real_test.sh checks that the result equals
# pricing/tables/ byte for byte. The EC2 and Spot Advisor tables come from verbatim excerpts of
# public files, which are not pperf's and so not in this repository: they are read from
# $PPERF_REAL_DATA/prices/excerpts/shipped-* (tests/e2e/real_data.sh; their origin is in the
# tables' source text and in the README there). The two SageMaker offer files beside this script
# are pperf's own transcriptions of figures from AWS blog posts into the offer format
# (docs/prices.md). aws-ec2-links.json beside this script carries the instances' network
# bandwidth, written by hand from the EC2 instance types guide (its source text cites the pages).
# Exit 77 with one line when the real files are absent.
set -euo pipefail
pperf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../tests/e2e/real_data.sh"
need_real_data
excerpts=$real_data/prices/excerpts
mkdir -p "$out"

"$pperf" prices import --format skypilot "$excerpts/shipped-aws-ec2-us-east-1.vms.csv" --out "$out/aws-ec2-us-east-1.json" \
  --region us-east-1 --published unknown --imported 2026-11-26 --name aws-ec2-us-east-1 --provider aws --service ec2 \
  --links "$here/aws-ec2-links.json" \
  --source "SkyPilot catalog v8 of AWS EC2 (github.com/skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv at commit 00148f2af3672e2229b4f7bf8157d5a3f36e3c35): its us-east-1 rows for the 12 types of this table, verbatim (on-demand, and spot per availability zone)" \
  --notes "The catalog records no date and its commit's date could not be read here (published: null); it postdates AWS's mid-2025 P4/P5 on-demand cut (p4d.24xlarge 21.957642 USD/h). A spot quote is the median of the region's availability zones (price basis spot_median), with the zones' min..max as its range. The Atlanta Local Zone (use1-atl2-az1) is a region of its own and left out of this us-east-1 table. Some zones list spot at the on-demand price (p5.48xlarge in use1-az1 and use1-az4): the catalog's figure, kept." >/dev/null

sm_source="Amazon SageMaker training on-demand prices as quoted in AWS Machine Learning Blog posts: 'Improve price performance of your model training using Amazon SageMaker heterogeneous clusters' (ml.p4d.24xlarge, ml.c5.18xlarge, ml.p3.2xlarge, ml.c5.9xlarge) and 'Maximize performance and reduce your deep learning training cost with AWS Trainium and Amazon SageMaker' (ml.trn1.32xlarge); ml.g5 rows from a third-party snapshot of the SageMaker pricing page (January 2024)."
"$pperf" prices import --format aws-offer "$here/aws-sagemaker-us-east-1.blogs.offer.json" --out "$out/sm-blogs.json" \
  --imported 2024-09-07 --name aws-sagemaker-us-east-1 --provider aws --service sagemaker-training --source "$sm_source" \
  --notes "SageMaker managed Spot savings are reported per job, not listed per instance: this table has no spot prices; give spot groups a usd_per_hour override. ml.c5.18xlarge is derived: (45.032 - 37.688) / 2. Instance specs match the EC2 instance of the same name. published is the date the figures were pinned (2024-09-07), as this table always stated." >/dev/null
"$pperf" prices import --format aws-offer "$here/aws-sagemaker-us-east-1.g5.offer.json" --base "$out/sm-blogs.json" \
  --out "$out/aws-sagemaker-us-east-1.json" --imported 2024-09-07 --links "$here/aws-ec2-links.json" \
  --row-source "third-party snapshot of the SageMaker pricing page, January 2024" >/dev/null
rm "$out/sm-blogs.json"

"$pperf" prices import --format spot-advisor "$excerpts/shipped-aws-spot-interruptions.advisor.json" --out "$out/aws-spot-interruptions.json" \
  --published 2025-06-28 --imported 2026-11-26 --name aws-spot-interruptions \
  --source "AWS Spot Instance Advisor data file https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json (Linux, field r: frequency-of-interruption bucket over the trailing month), as copied into github.com/alexei-led/spotinfo internal/spot/data/spot-advisor-data.json at commit 5eedf20a99614443af215f4aaf09bd10805cac72 (2025-06-28; sha256 of that copy 06d25100fe665ce321f205bd210aceb00184034be46b9b204b9efa7d1bda481b): its ranges and the Linux rows of this table's 12 types in us-east-1 and us-west-2, verbatim" \
  --notes "A bucket is the share of a type's Spot instances AWS reclaimed during the trailing month. A bucket's bounds are its label's (<5%, 5-10%, ...; the file's max values 5, 11, 16, 22 size the Advisor's bar); the value used is the bucket's midpoint (>20 % as 25 %); read as the probability that one instance is interrupted at least once in a month of 730 h, so with Poisson interruptions an instance's rate is -ln(1 - share) interruptions per month. Buckets move from month to month: override with a configuration's spot.interruptions_per_month." >/dev/null
