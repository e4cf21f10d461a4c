// main.cpp — the Boost.Test module of simasio's test suite
#define BOOST_TEST_MODULE simasio
#include <boost/test/unit_test.hpp>
