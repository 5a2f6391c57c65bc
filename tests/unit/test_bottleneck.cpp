// The bottleneck verdict's rules, at and around their thresholds.
#include <gtest/gtest.h>

#include "src/core/bottleneck.h"

using namespace pperf;

TEST(Bottleneck, InputBoundSaysWhetherTheDataSideIsShortOfCpu) {
  BottleneckEvidence e;
  e.data_wait_fraction = 0.41;
  e.trainer_cpu_busy = 0.5;
  e.data_cpu_busy = 0.99;
  Bottleneck b = bottleneck_verdict(e);
  EXPECT_EQ(b.verdict, "input-bound");
  EXPECT_EQ(b.evidence, "data wait 41 %, data CPUs 99 % busy: more data workers or a data group would help");
  EXPECT_DOUBLE_EQ(*b.data_cpu_pct, 99.0);
  e.data_cpu_busy = 0.3;
  EXPECT_EQ(bottleneck_verdict(e).evidence, "data wait 41 %, data CPUs only 30 % busy: the pipeline is not short of "
                                            "CPU (too few workers for its CPUs, or I/O)");
  e.data_cpu_busy.reset();
  e.gpu_busy = 0.35;
  EXPECT_EQ(bottleneck_verdict(e).evidence, "data wait 41 %, GPU 35 % busy: faster or more data workers would help");
}

TEST(Bottleneck, APipelineOnTheTrainersCpusIsInputBoundEvenWithLittleWait) {
  // configs/p3_vs_hetero_mnist_python.json's homogeneous side as measured: 8 % data wait, the
  // trainer's threads 47 % busy, the Python pipeline on the same CPUs taking 45 % of them.
  BottleneckEvidence e;
  e.data_wait_fraction = 0.08;
  e.trainer_cpu_busy = 0.47;
  e.data_cpu_busy = 0.45;
  e.pipeline_on_trainer_cpus = 0.45;
  Bottleneck b = bottleneck_verdict(e);
  EXPECT_EQ(b.verdict, "input-bound");
  EXPECT_EQ(b.evidence, "the data pipeline uses 45 % of the trainer's CPUs (trainer threads 47 %, data wait 8 %): "
                        "preprocessing on other CPUs or instances would give them back");
  e.pipeline_on_trainer_cpus = 0.149;
  EXPECT_EQ(bottleneck_verdict(e).verdict, "compute-bound") << "below 15 % of the trainer's CPUs";
  // With the wait too, the evidence names the sharing instead of "not short of CPU".
  e.data_wait_fraction = 0.13;
  e.data_cpu_busy = 0.12;
  e.pipeline_on_trainer_cpus = 0.12;
  EXPECT_EQ(bottleneck_verdict(e).evidence, "data wait 13 %, the data pipeline shares the trainer's CPUs (uses 12 % of "
                                            "them): preprocessing on other CPUs or instances would help");
}

TEST(Bottleneck, ComputeBoundBelowTenPercentWait) {
  BottleneckEvidence e;
  e.data_wait_fraction = 0.099;
  e.trainer_cpu_busy = 0.97;
  e.data_cpu_busy = 0.2;
  const Bottleneck b = bottleneck_verdict(e);
  EXPECT_EQ(b.verdict, "compute-bound");
  EXPECT_EQ(b.evidence, "data wait 10 %, trainer CPUs 97 % busy: a faster accelerator or more ranks would help, "
                        "more data workers would not");
  e.trainer_cpu_busy = 0.45;
  EXPECT_NE(bottleneck_verdict(e).evidence.find("the trainer leaves its CPUs idle"), std::string::npos);
  e.data_wait_fraction = 0.10;
  EXPECT_EQ(bottleneck_verdict(e).verdict, "input-bound");
}

TEST(Bottleneck, CommunicationBoundWhenTheAllReduceOutweighsTheWait) {
  BottleneckEvidence e;
  e.data_wait_fraction = 0.12;
  e.trainer_cpu_busy = 0.9;
  e.comm_fraction = 0.37;
  const Bottleneck b = bottleneck_verdict(e);
  EXPECT_EQ(b.verdict, "communication-bound");
  EXPECT_EQ(b.evidence.rfind("gradient all-reduce in flight 37 % of the step, data wait 12 %", 0), 0u);
  e.comm_fraction = 0.29;  // below the threshold: the 12 % wait decides
  EXPECT_EQ(bottleneck_verdict(e).verdict, "input-bound");
  e.comm_fraction = 0.35;
  e.data_wait_fraction = 0.5;  // waiting longer than communicating
  EXPECT_EQ(bottleneck_verdict(e).verdict, "input-bound");
}

TEST(Bottleneck, ABusyHostIsNamed) {
  EXPECT_EQ(busy_neighbour_warning(0.24, 2), "");
  EXPECT_EQ(busy_neighbour_warning(0.6, 2),
            "busy host: other processes used 60 % of its 2 CPUs while this item ran; its step times include their "
            "contention");
}

TEST(Bottleneck, IdleTrainerCpusOnABusyHostAreTheOthersNotTooFewThreads) {
  // Issue 66's case: a 2-thread BERT step on 2 CPUs, the trainer's threads 30 % busy, while other
  // processes used 67 % of the host's CPU time at a load of 5.1.
  BottleneckEvidence e;
  e.data_wait_fraction = 0.01;
  e.trainer_cpu_busy = 0.30;
  e.others_cpu_busy = 0.67;
  e.load_average = 5.1;
  e.logical_cpus = 2;
  const Bottleneck b = bottleneck_verdict(e);
  EXPECT_EQ(b.verdict, "compute-bound");
  EXPECT_EQ(b.evidence, "data wait 1 %, trainer CPUs 30 % busy: the CPUs were taken by other processes (they used 67 % "
                        "of the host's 2, load 5.1), not left idle by the trainer: rerun when the host is quiet (these "
                        "step times include the contention)");
  e.others_cpu_busy = 0.24;  // below a quarter of the host: the trainer's own idleness
  EXPECT_NE(bottleneck_verdict(e).evidence.find("the trainer leaves its CPUs idle"), std::string::npos);
  e.others_cpu_busy = 0.67;
  e.trainer_cpu_busy = 0.6;  // a busy trainer: the usual advice
  EXPECT_NE(bottleneck_verdict(e).evidence.find("a faster accelerator"), std::string::npos);
}
