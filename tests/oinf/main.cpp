#define BOOST_TEST_MODULE oinf_format
#include <boost/test/unit_test.hpp>
