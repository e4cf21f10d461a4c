// main.cpp — the conformance suite: Boost's own examples, alias-switched, in simulation
#define BOOST_TEST_MODULE simasio_conformance
#include <boost/test/unit_test.hpp>
