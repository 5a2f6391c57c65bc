#!/usr/bin/env bash
# Re-imports the shipped price tables from the source files beside this script, through
# `pperf prices import`: usage reimport.sh PPERF OUT_DIR. tests/e2e/prices_test.sh checks that the
# result equals pricing/tables/ byte for byte. The source files are transcriptions of the pinned
# figures into the providers' formats (README.md says what each holds), not the providers' files.
set -euo pipefail
pperf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

"$pperf" prices import --format skypilot "$here/aws-ec2-us-east-1.vms.csv" --out "$out/aws-ec2-us-east-1.json" \
  --published unknown --imported 2026-11-22 --name aws-ec2-us-east-1 --provider aws --service ec2 \
  --source "SkyPilot catalog v7 snapshot of AWS EC2 prices (on-demand, and spot per availability zone)" \
  --notes "retrieved is the date these figures were pinned into this table; the snapshot itself is older and its date was not recorded (published: null): AWS cut P4 and P5 on-demand prices in mid-2025 and the p4d/p5 rows predate that cut. Spot rows give the min..max across us-east-1 availability zones without the zones' names; with no average published, a spot quote uses the midpoint (price basis spot_mid)." >/dev/null

sm_source="Amazon SageMaker training on-demand prices as quoted in AWS Machine Learning Blog posts: 'Improve price performance of your model training using Amazon SageMaker heterogeneous clusters' (ml.p4d.24xlarge, ml.c5.18xlarge, ml.p3.2xlarge, ml.c5.9xlarge) and 'Maximize performance and reduce your deep learning training cost with AWS Trainium and Amazon SageMaker' (ml.trn1.32xlarge); ml.g5 rows from a third-party snapshot of the SageMaker pricing page (January 2024)."
"$pperf" prices import --format aws-offer "$here/aws-sagemaker-us-east-1.blogs.offer.json" --out "$out/sm-blogs.json" \
  --imported 2024-09-07 --name aws-sagemaker-us-east-1 --provider aws --service sagemaker-training --source "$sm_source" \
  --notes "SageMaker managed Spot savings are reported per job, not listed per instance: this table has no spot prices; give spot groups a usd_per_hour override. ml.c5.18xlarge is derived: (45.032 - 37.688) / 2. Instance specs match the EC2 instance of the same name. published is the date the figures were pinned (2024-09-07), as this table always stated." >/dev/null
"$pperf" prices import --format aws-offer "$here/aws-sagemaker-us-east-1.g5.offer.json" --base "$out/sm-blogs.json" \
  --out "$out/aws-sagemaker-us-east-1.json" --imported 2024-09-07 \
  --row-source "third-party snapshot of the SageMaker pricing page, January 2024" >/dev/null
rm "$out/sm-blogs.json"

"$pperf" prices import --format spot-advisor "$here/aws-spot-interruptions.advisor.json" --out "$out/aws-spot-interruptions.json" \
  --published 2025-06-28 --imported 2026-11-22 --name aws-spot-interruptions \
  --source "AWS Spot Instance Advisor data file https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json (Linux, field r: frequency-of-interruption bucket over the trailing month), as copied into github.com/alexei-led/spotinfo internal/spot/data/spot-advisor-data.json at commit 5eedf20a99614443af215f4aaf09bd10805cac72 (2025-06-28); sha256 of that copy 06d25100fe665ce321f205bd210aceb00184034be46b9b204b9efa7d1bda481b" \
  --notes "A bucket is the share of a type's Spot instances AWS reclaimed during the trailing month. The value used is the bucket's midpoint (>20 % as 25 %); read as the probability that one instance is interrupted at least once in a month of 730 h, so with Poisson interruptions an instance's rate is -ln(1 - share) interruptions per month. Buckets move from month to month: override with a configuration's spot.interruptions_per_month." >/dev/null
