# Conan 2 recipe for simasio. It lives in conan/ and builds from the
# repository root (layout() sets folders.root to ".."):
#
#   conan create conan/ --build=missing
#
# Consumers get the CMake package "simasio" with the targets
# simasio::simasio, simasio::boost_test and (Linux) simasio::interpose, and
# simasio_add_sweep().
import os
import re

from conan import ConanFile
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load


class SimasioConan(ConanFile):
    name = "simasio"
    description = "Deterministic simulation for Boost.Asio code: virtual time, a seeded scheduler, a simulated network"
    topics = ("asio", "simulation", "testing", "deterministic", "networking")
    package_type = "static-library"
    settings = "os", "arch", "compiler", "build_type"
    options = {"fPIC": [True, False]}
    default_options = {"fPIC": True}

    _sources = ("CMakeLists.txt", "cmake/*", "include/*", "src/*", "README.md", "CHANGELOG.md")

    def set_version(self):
        # The one source of the version: include/simasio/version.hpp.
        header = load(self, os.path.join(self.recipe_folder, "..", "include", "simasio", "version.hpp"))
        parts = [re.search(r"#define SIMASIO_VERSION_%s (\d+)" % p, header).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def export_sources(self):
        root = os.path.join(self.recipe_folder, "..")
        for pattern in self._sources:
            copy(self, pattern, root, self.export_sources_folder)

    def layout(self):
        self.folders.root = ".."
        cmake_layout(self)

    def requirements(self):
        # Asio and Beast are header-only parts of Boost; Boost.Test backs simasio::boost_test.
        self.requires("boost/[>=1.81.0 <2]", transitive_headers=True)
        self.requires("spdlog/[>=1.10.0 <2]", transitive_headers=True)

    def validate(self):
        from conan.tools.build import check_min_cppstd

        check_min_cppstd(self, 20)

    def generate(self):
        CMakeDeps(self).generate()
        toolchain = CMakeToolchain(self)
        toolchain.cache_variables["SIMASIO_BUILD_TESTS"] = False
        toolchain.cache_variables["SIMASIO_BUILD_SAMPLES"] = False
        toolchain.cache_variables["SIMASIO_BUILD_BENCH"] = False
        toolchain.generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def package(self):
        CMake(self).install()

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "simasio")
        self.cpp_info.set_property("cmake_target_name", "simasio::simasio")
        self.cpp_info.set_property("cmake_build_modules", [os.path.join("lib", "cmake", "simasio", "simasio_sweep.cmake"),
                                                           os.path.join("lib", "cmake", "simasio", "simasio_fuzz.cmake")])

        core = self.cpp_info.components["core"]
        core.set_property("cmake_target_name", "simasio::simasio")
        core.libs = ["simasio"]
        core.requires = ["boost::headers", "boost::context", "spdlog::spdlog"]  # Boost.Context: process stacks
        if self.settings.os in ("Linux", "FreeBSD"):
            core.system_libs = ["pthread"]

        if self.settings.os == "Linux":
            # An object file (CMake installs it per configuration), linked
            # whole into test executables so that its libc definitions preempt libc's.
            interpose = self.cpp_info.components["interpose"]
            interpose.set_property("cmake_target_name", "simasio::interpose")
            interpose.objects = [os.path.join("lib", "simasio-interpose", "objects-%s" % self.settings.build_type,
                                              "simasio_interpose", "src", "interpose", "interpose.cpp.o")]
            interpose.requires = ["core"]
            interpose.system_libs = ["dl"]
            symbols = ("clock_gettime", "gettimeofday", "time", "timerfd_settime", "getrandom", "getentropy",
                       "arc4random", "arc4random_buf", "arc4random_uniform", "rand", "random", "pthread_create",
                       "socket", "connect", "send", "sendto", "sendmsg", "sendmmsg", "getaddrinfo")
            interpose.exelinkflags = ["-Wl,--export-dynamic-symbol=" + name for name in symbols]

        boost_test = self.cpp_info.components["boost_test"]
        boost_test.set_property("cmake_target_name", "simasio::boost_test")
        boost_test.requires = ["core", "boost::unit_test_framework"]
