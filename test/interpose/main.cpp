// main.cpp — the test program linked with simasio::interpose
#define BOOST_TEST_MODULE simasio_interpose
#include <boost/test/unit_test.hpp>
