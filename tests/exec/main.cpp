#define BOOST_TEST_MODULE exec
#include <boost/test/unit_test.hpp>
